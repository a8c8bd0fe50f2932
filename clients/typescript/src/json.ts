// proto3 JSON as the REST gateway prints it: every field, zeros, `false` and empty lists
// included (the gateway's always_print_fields_with_no_presence), so that seat 0 and side 0
// keep their `seat`/`side`; optional fields are absent when unset, as on REST; and the fields
// in the order the .proto declares them, as REST writes them (protobuf-es writes them by
// number: `Ruleset.concealedPremiums`, field 47, is declared after `concealedBonus`, 33).
import {
  toJson as protobufToJson,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type JsonWriteOptions,
  type MessageShape,
} from "@bufbuild/protobuf";

/** `toJson` of protobuf-es with `alwaysEmitImplicit` on by default: the REST answer's JSON. */
export function toJson<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  options?: Partial<JsonWriteOptions>,
): JsonValue {
  const json = protobufToJson(schema, message, { alwaysEmitImplicit: true, ...options });
  return declared(schema, json, options?.useProtoFieldName ?? false);
}

/** `json` (a message of `desc`) with its keys in the order the .proto declares the fields. */
function declared(desc: DescMessage, json: JsonValue, protoNames: boolean): JsonValue {
  if (json === null || typeof json !== "object" || Array.isArray(json) || desc.typeName.startsWith("google.protobuf.")) {
    return json;
  }
  const byNumber = new Map(desc.fields.map((f) => [f.number, f]));
  const out: JsonObject = {};
  for (const { number } of desc.proto.field) {
    const field = byNumber.get(number);
    const key = field && (protoNames ? field.name : field.jsonName);
    if (!field || key === undefined || !(key in json)) continue;
    const value = json[key]!;
    if (field.fieldKind === "message") out[key] = declared(field.message, value, protoNames);
    else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(value)) {
      out[key] = value.map((item) => declared(field.message, item, protoNames));
    } else out[key] = value;
  }
  for (const [key, value] of Object.entries(json)) if (!(key in out)) out[key] = value!;
  return out;
}
