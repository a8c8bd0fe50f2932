// proto3 JSON as the REST gateway prints it: every field, zeros, `false` and empty lists
// included (the gateway's always_print_fields_with_no_presence), so that seat 0 and side 0
// keep their `seat`/`side`; optional fields are absent when unset, as on REST.
import {
  toJson as protobufToJson,
  type DescMessage,
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
  return protobufToJson(schema, message, { alwaysEmitImplicit: true, ...options });
}
