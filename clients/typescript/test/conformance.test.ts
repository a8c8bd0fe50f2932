// The client read against the conformance vectors (conformance/exchanges.json, written by
// tests/conformance_vectors.py; conformance/README.md): each recorded answer decodes the same
// from its two encodings (protobuf and proto3 JSON), and every exchange both transports carry,
// called through the REST and the gRPC client with the request id and language the vectors
// send, on a real server started with the vectors' settings, gives the recorded answer or the
// recorded refusal, decoded.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Adjudicator, AdjudicatorError, createRestClient, equals, fromBinary, fromJson, type AdjudicatorClient } from "@samba-adjudicator/client";
import { createGrpcClient, type GrpcAdjudicatorClient } from "@samba-adjudicator/client/grpc";
import { startServer, type Server } from "./server.js";

const REPO = fileURLToPath(new URL("../../../../", import.meta.url));

interface Status { message: string; details: Array<{ "@type": string; reason?: string; domain?: string; metadata?: Record<string, string>; fieldViolations?: Array<{ field?: string; reason: string; description: string }> }> }
interface Exchange {
  name: string;
  rpc: string;
  request: object;
  metadata: Record<string, string>;
  only?: "rest" | "grpc";
  masked?: string[];
  rest?: { status: number; answer: { error?: Status & { status: string } } };
  grpc?: { status: string; answerBinary?: string; details?: Status };
}
const VECTORS: { server: { env: Record<string, string> }; exchanges: Exchange[] } = JSON.parse(
  readFileSync(`${REPO}conformance/exchanges.json`, "utf8"),
);

type Methods = typeof Adjudicator.method;
const methodOf = (rpc: string) => Adjudicator.method[(rpc[0]!.toLowerCase() + rpc.slice(1)) as keyof Methods];

/** `value` without the keys `keys` names, at any depth (conformance/README.md#masking). */
function masked(value: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => masked(v, keys));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)).map(([k, v]) => [k, masked(v, keys)]));
  }
  return value;
}

for (const exchange of VECTORS.exchanges) {
  if (exchange.grpc?.answerBinary === undefined) continue;
  test(`both encodings decode the same: ${exchange.name}`, () => {
    const output = methodOf(exchange.rpc).output;
    const binary = fromBinary(output, Buffer.from(exchange.grpc!.answerBinary!, "base64"));
    assert.ok(equals(output, binary, fromJson(output, exchange.rest!.answer as never)));
  });
}

let server: Server;
const clients: Record<string, AdjudicatorClient> = {};
let grpcClient: GrpcAdjudicatorClient;
before(async () => {
  server = await startServer(VECTORS.server.env);
  clients["rest"] = createRestClient({ baseUrl: server.restUrl, retry: false });
  clients["grpc"] = grpcClient = createGrpcClient({ baseUrl: server.grpcUrl, retry: false });
});
after(async () => {
  grpcClient?.close();
  await server?.stop();
});

/** What a client decodes of a refusal, from the recorded REST `error` or gRPC `google.rpc.Status`. */
function refusal(status: string, body: Status) {
  const info: Partial<Status["details"][number]> = body.details.find((d) => d["@type"].endsWith("ErrorInfo")) ?? {};
  const bad = body.details.flatMap((d) => d.fieldViolations ?? []);
  return {
    status,
    message: body.message,
    reason: info.reason ?? "",
    domain: info.domain ?? "",
    metadata: info.metadata ?? {},
    violations: bad.map((v) => [v.field ?? "", v.reason, v.description]),
  };
}

for (const transport of ["rest", "grpc"] as const) {
  for (const exchange of VECTORS.exchanges.filter((e) => e.only === undefined)) {
    test(`${transport} gives the recorded answer: ${exchange.name}`, async () => {
      const method = methodOf(exchange.rpc);
      const call = clients[transport]![method.localName as keyof AdjudicatorClient] as (r: unknown, o: object) => Promise<never>;
      const requestId = exchange.metadata["x-request-id"]!;
      const locale = exchange.metadata["accept-language"];
      try {
        const got = await call(fromJson(method.input, exchange.request as never), { requestId, locale, timeoutMs: 60_000 });
        assert.equal(exchange.grpc!.status, "OK", "answered where a refusal was recorded");
        assert.ok(equals(method.output, got, fromJson(method.output, exchange.rest!.answer as never)));
      } catch (e) {
        if (!(e instanceof AdjudicatorError)) throw e;
        const recorded = transport === "rest" ? refusal(exchange.rest!.answer.error!.status, exchange.rest!.answer.error!) : refusal(exchange.grpc!.status, exchange.grpc!.details!);
        const want = masked(recorded, exchange.masked ?? []) as ReturnType<typeof refusal>;
        const decoded = {
          status: e.status,
          reason: e.reason,
          domain: e.domain,
          metadata: e.metadata,
          violations: e.fieldViolations.map((v) => [v.field, v.reason, v.description]),
        };
        const { message, ...rest } = want;
        assert.deepEqual(decoded, rest);
        // the error's message is "STATUS REASON: the service's message"
        if (message !== undefined) assert.equal(e.message, `${want.status}${want.reason ? ` ${want.reason}` : ""}: ${message}`);
        assert.equal(e.requestId, requestId);
      }
    });
  }
}
