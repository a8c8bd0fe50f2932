// The gRPC transport (Node only): connect-es over HTTP/2, rich status decoded.
import type { DescMessage, DescMethodUnary, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { Adjudicator } from "./gen/samba/v1/adjudicator_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { AdjudicatorError, STATUS_NAMES, detailsInit } from "./errors.js";
import {
  abortError,
  createAdjudicatorClient,
  languageHeaders,
  type AdjudicatorClient,
  type Call,
  type ClientOptions,
} from "./client.js";
import { tableHeaders } from "./tables.js";
import { retryFromServiceConfig, timeoutFromServiceConfig, type ServiceConfig } from "./retry.js";

export interface GrpcClientOptions extends ClientOptions {
  /** The gRPC server as a URL, e.g. `http://localhost:50051` (plaintext) or `https://…`. */
  baseUrl: string;
  /**
   * A gRPC service config (the JSON gRPC channels take): its first methodConfig's
   * `retryPolicy` becomes the client's retry policy and its `timeout` the default deadline,
   * unless `retry` / `timeoutMs` are given.
   */
  serviceConfig?: ServiceConfig;
}

export interface GrpcAdjudicatorClient extends AdjudicatorClient {
  /** Closes the HTTP/2 connection (calls in flight fail). */
  close(): void;
}

/** AIP-193 error from a gRPC status, with the `grpc-status-details-bin` details. */
export function errorFromConnect(err: ConnectError, requestId: string): AdjudicatorError {
  const info = err.findDetails(ErrorInfoSchema)[0];
  const decoded = detailsInit(info, err.findDetails(BadRequestSchema));
  // The client's own deadline: what the server would have said.
  if (!info && err.code === Code.DeadlineExceeded) decoded.reason = "DEADLINE_EXCEEDED";
  return new AdjudicatorError({
    status: STATUS_NAMES[err.code] ?? "UNKNOWN",
    message: err.rawMessage,
    ...decoded,
    requestId: decoded.requestId ?? requestId,
    cause: err,
  });
}

/** Node's codes of a connection lost under a call (the server gone, not the caller). */
const LOST = new Set(["ECONNRESET", "EPIPE", "ERR_HTTP2_INVALID_STREAM", "ERR_STREAM_DESTROYED", "ERR_HTTP2_SESSION_ERROR"]);

/** Whether `err` is a call whose connection was lost: ABORTED with a lost connection in its causes. */
function connectionLost(err: ConnectError): boolean {
  if (err.code !== Code.Aborted) return false;
  for (let cause: unknown = err.cause; cause; cause = (cause as { cause?: unknown }).cause) {
    if (LOST.has((cause as { code?: string }).code ?? "")) return true;
  }
  return false;
}

/**
 * A client of the gRPC server (Node 20+). Call `close()` when done. A connection refused or
 * lost (a server restarting) is UNAVAILABLE, retried within the deadline as gRPC's
 * `waitForReady` would wait for it.
 */
export function createGrpcClient(options: GrpcClientOptions): GrpcAdjudicatorClient {
  const sessionManager = new Http2SessionManager(options.baseUrl);
  const transport = createGrpcTransport({ baseUrl: options.baseUrl, sessionManager });
  const stub = createClient(Adjudicator, transport) as unknown as Record<string, Client<typeof Adjudicator>["deal"]>;
  const language = languageHeaders(options.locale);

  async function invoke<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request: MessageShape<I>,
    call: Call,
  ): Promise<MessageShape<O>> {
    const rpc = stub[method.localName] as unknown as (
      request: MessageShape<I>,
      options: object,
    ) => Promise<MessageShape<O>>;
    try {
      return await rpc(request, {
        headers: {
          ...(call.locale ? languageHeaders(call.locale) : language),
          ...tableHeaders(call.table),
          "x-request-id": call.requestId,
        },
        // The deadline also travels as grpc-timeout, so the server stops working on it.
        timeoutMs: call.timeoutMs ?? 0,
        signal: call.signal,
      });
    } catch (cause) {
      if (call.signal.aborted) throw abortError(call, cause);
      const err = ConnectError.from(cause);
      if (err.code === Code.Unknown && !(cause instanceof ConnectError)) throw cause;
      if (connectionLost(err)) {
        // connect-node says ABORTED for a connection reset under a call in flight (the
        // server killed or restarting): the call did not reach a serving replica.
        throw new AdjudicatorError({
          status: "UNAVAILABLE",
          message: `cannot reach ${options.baseUrl}: ${err.rawMessage}`,
          requestId: call.requestId,
          cause: err,
        });
      }
      throw errorFromConnect(err, call.requestId);
    }
  }

  const config = options.serviceConfig ?? {};
  const merged: ClientOptions = {
    timeoutMs: options.timeoutMs ?? timeoutFromServiceConfig(config),
    retry: options.retry ?? retryFromServiceConfig(config),
  };
  return { ...createAdjudicatorClient(invoke, merged), close: () => sessionManager.abort() };
}
