// The typed API both transports share: one method per RPC of samba.v1.Adjudicator.
import {
  create,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { Adjudicator } from "./gen/samba/v1/adjudicator_pb.js";
import { AdjudicatorError } from "./errors.js";
import { resolveRetry, withRetry, type RetryPolicy } from "./retry.js";
import { tableKey } from "./tables.js";

/** Per-call options. */
export interface CallOptions {
  /** Deadline in milliseconds (overrides the client's `timeoutMs`; 0 or less: none). */
  timeoutMs?: number;
  /** Cancels the call (the error's status is then CANCELLED). */
  signal?: AbortSignal;
  /** Sent as `x-request-id`; generated when absent. Logged by the service, and in errors. */
  requestId?: string;
  /** The language of this call's human texts (overrides the client's `locale`). */
  locale?: string;
  /**
   * The table key sent as `x-samba-table`, by which a balancer keeps a table's calls on one
   * worker (docs/deployment.md). Absent: the deal's commitment (./tables.ts).
   */
  table?: string;
}

/** Default deadline of a call in milliseconds, every attempt included: a service restarting
 * (a few seconds) is ridden out. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Options of a client, whatever its transport. */
export interface ClientOptions {
  /** Default deadline of every call in milliseconds (absent: DEFAULT_TIMEOUT_MS; 0: none). */
  timeoutMs?: number;
  /**
   * Retries of calls that meet UNAVAILABLE (a draining replica, a refused connection,
   * REST 503/502): DEFAULT_RETRY when absent, `false` for one attempt. Within the deadline.
   */
  retry?: RetryPolicy | false;
  /**
   * The language of the answers' human texts (`es`, `it-IT`, `sv`, …; docs/i18n.md): sent
   * on every call as `Accept-Language` (REST) or `accept-language` metadata (gRPC). Absent:
   * English. Codes, rule anchors, field paths and details are the same in every language.
   */
  locale?: string;
}

/** The language header of every call of a client with `locale`, none without. */
export function languageHeaders(locale: string | undefined): Record<string, string> {
  return locale ? { "accept-language": locale } : {};
}

type Methods = (typeof Adjudicator)["method"];

/**
 * Every RPC as a method, named as in protobuf-es (`listRulesets`, `getRuleset`, `deal`,
 * `checkMeld`, `validateAction`, `applyAction`, `listLegalActions`, `scoreDeal`,
 * `getPlayerView`, `replayDeal`, `suggestAction`). Requests are message init objects (or messages);
 * answers are messages of the generated types. Errors are `AdjudicatorError`.
 */
export type AdjudicatorClient = {
  [K in keyof Methods]: (
    request: MessageInitShape<Methods[K]["input"]>,
    options?: CallOptions,
  ) => Promise<MessageShape<Methods[K]["output"]>>;
};

/** One call as a transport makes it: a complete request message in, the answer out. */
export interface Call {
  readonly requestId: string;
  /** Absolute deadline and cancellation, combined. */
  readonly signal: AbortSignal;
  /** Remaining time budget in milliseconds when a deadline is set (of this attempt). */
  readonly timeoutMs: number | undefined;
  /** The call's `locale`, when it names one (else the transport's). */
  readonly locale?: string;
  /** The call's table key (`x-samba-table`), when it has one. */
  readonly table?: string;
}

export type Invoke = <I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  request: MessageShape<I>,
  call: Call,
) => Promise<MessageShape<O>>;

/** A random request id (hex); crypto.randomUUID is missing on plain-http pages. */
export function newRequestId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A signal that aborts on the caller's signal or when the deadline passes, told apart by
 * the abort reason (a TimeoutError DOMException for the deadline), as AbortSignal.timeout
 * does; `done` releases the timer.
 */
function callSignal(timeoutMs: number | undefined, signal: AbortSignal | undefined) {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  signal?.addEventListener("abort", onAbort, { once: true });
  const timer =
    timeoutMs !== undefined
      ? setTimeout(
          () => controller.abort(new DOMException("deadline exceeded", "TimeoutError")),
          timeoutMs,
        )
      : undefined;
  return {
    signal: controller.signal,
    done() {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** The error for a call ended by its own signal (deadline or cancellation). */
export function abortError(call: Call, cause: unknown): AdjudicatorError {
  const deadline = (call.signal.reason as { name?: string } | undefined)?.name === "TimeoutError";
  return new AdjudicatorError({
    status: deadline ? "DEADLINE_EXCEEDED" : "CANCELLED",
    // As the server says for a deadline; a cancellation is the caller's, with no reason.
    reason: deadline ? "DEADLINE_EXCEEDED" : "",
    message: deadline ? `no answer within ${call.timeoutMs} ms` : "the call was cancelled",
    requestId: call.requestId,
    cause,
  });
}

/** The client object over one transport's `invoke`. */
export function createAdjudicatorClient(invoke: Invoke, options: ClientOptions = {}): AdjudicatorClient {
  const client: Record<string, unknown> = {};
  const retry = resolveRetry(options.retry);
  for (const method of Adjudicator.methods) {
    if (method.methodKind !== "unary") continue;
    const unary = method as DescMethodUnary;
    client[method.localName] = async (request: MessageInitShape<DescMessage>, callOptions: CallOptions = {}) => {
      const timeout = callOptions.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const timeoutMs = timeout !== undefined && timeout > 0 ? timeout : undefined;
      const { signal, done } = callSignal(timeoutMs, callOptions.signal);
      const requestId = callOptions.requestId ?? newRequestId();
      const deadline = timeoutMs !== undefined ? Date.now() + timeoutMs : undefined;
      const message = create(unary.input, request);
      // Each attempt carries what is left of the deadline, and the same request id.
      const attempt = (table: string | undefined) => () =>
        invoke(unary, message, {
          requestId,
          signal,
          timeoutMs: deadline !== undefined ? Math.max(deadline - Date.now(), 1) : undefined,
          locale: callOptions.locale,
          table,
        });
      try {
        const table = callOptions.table ?? (await tableKey(method.localName, message));
        return await withRetry(retry, signal, deadline, attempt(table));
      } finally {
        done();
      }
    };
  }
  return client as AdjudicatorClient;
}

/** The request and options `listLegalActions` takes. */
type ListRequest = Parameters<AdjudicatorClient["listLegalActions"]>[0];
type LegalAction = Awaited<ReturnType<AdjudicatorClient["listLegalActions"]>>["actions"][number];

/**
 * Every legal action of a ListLegalActions request, page after page (each page a call of its
 * own, with `options`): `for await (const action of iterLegalActions(client, request))`.
 */
export async function* iterLegalActions(
  client: AdjudicatorClient,
  request: ListRequest,
  options: CallOptions = {},
): AsyncGenerator<LegalAction> {
  let pageToken = "";
  for (;;) {
    const page = await client.listLegalActions({ ...request, pageToken }, options);
    yield* page.actions;
    pageToken = page.nextPageToken;
    if (!pageToken) return;
  }
}
