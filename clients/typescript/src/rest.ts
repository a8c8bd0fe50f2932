// The REST transport: `fetch` (browsers and Node), proto3 JSON by the library's mapping.
import {
  fromJson,
  getOption,
  toJson,
  type DescMessage,
  type DescMethodUnary,
  type MessageShape,
} from "@bufbuild/protobuf";
import { http } from "./gen/google/api/annotations_pb.js";
import { AdjudicatorError, errorFromRestBody } from "./errors.js";
import {
  abortError,
  createAdjudicatorClient,
  languageHeaders,
  type AdjudicatorClient,
  type Call,
  type ClientOptions,
} from "./client.js";
import { tableHeaders } from "./tables.js";

/**
 * An RPC's REST verb and path: its `google.api.http` option in the schema (AIP-127), the one
 * place a route is written (the gateway reads the same option).
 */
function route(method: DescMethodUnary): readonly ["GET" | "POST", string] {
  const rule = getOption(method, http);
  const pattern = rule.pattern;
  if (pattern.case === "get") return ["GET", pattern.value];
  if (pattern.case === "post") return ["POST", pattern.value];
  throw new Error(`no REST route for ${method.name}`);
}

export interface RestClientOptions extends ClientOptions {
  /** The gateway, e.g. `http://localhost:8080` (a path prefix is kept). */
  baseUrl: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
  /** Headers added to every request (e.g. an authorization header for your gateway). */
  headers?: Record<string, string>;
}

/** A client of the REST gateway; works in browsers (the gateway must allow the page's origin: CORS) and Node. */
export function createRestClient(options: RestClientOptions): AdjudicatorClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const language = languageHeaders(options.locale);

  async function invoke<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request: MessageShape<I>,
    call: Call,
  ): Promise<MessageShape<O>> {
    const [verb, template] = route(method);
    const path = template.replace("{profile}", () =>
      encodeURIComponent((request as unknown as { profile: string }).profile),
    );
    const headers: Record<string, string> = {
      ...options.headers,
      ...(call.locale ? languageHeaders(call.locale) : language),
      ...tableHeaders(call.table),
      "x-request-id": call.requestId,
    };
    if (call.timeoutMs !== undefined) headers["x-server-timeout"] = String(call.timeoutMs / 1000);
    let body: string | undefined;
    if (verb === "POST") {
      headers["content-type"] = "application/json";
      body = JSON.stringify(toJson(method.input, request));
    }
    let response: Response;
    let text: string;
    try {
      response = await doFetch(base + path, { method: verb, headers, body, signal: call.signal });
      text = await response.text();
    } catch (cause) {
      if (call.signal.aborted) throw abortError(call, cause);
      throw new AdjudicatorError({
        status: "UNAVAILABLE",
        message: `cannot reach ${base}: ${String(cause)}`,
        requestId: call.requestId,
        cause,
      });
    }
    const requestId = response.headers.get("x-request-id") ?? call.requestId;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw errorFromRestBody(response.status, parsed, requestId);
    if (parsed === undefined) {
      throw new AdjudicatorError({
        status: "INTERNAL",
        message: `HTTP ${response.status} answer is not JSON`,
        requestId,
        httpStatus: response.status,
      });
    }
    // Fields a newer server adds are skipped, not fatal.
    return fromJson(method.output, parsed as never, { ignoreUnknownFields: true });
  }

  return createAdjudicatorClient(invoke, options);
}
