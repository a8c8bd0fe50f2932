// Retrying calls that did not reach a serving replica.
//
// Every RPC of samba.v1.Adjudicator is idempotent (an answer depends on the request alone),
// so a call sent again answers the same and a retry is always safe. Retried by default:
// UNAVAILABLE — over gRPC the status itself (a draining replica, a refused or reset
// connection), over REST a 503 (draining), a 502 (a proxy that found no replica) or a
// network error — and CANCELLED when the caller's signal did not cancel it (a draining gRPC
// server answers it, through a proxy, for a call it had received but not started). Backoff is capped exponential with full jitter, as gRPC's retry policy:
// before retry n the client sleeps a random time in [0, min(maxBackoffMs,
// initialBackoffMs * backoffMultiplier ** (n - 1))]. The call's deadline covers every
// attempt; no retry starts that would begin after it. By default (`maxAttempts: Infinity`) a
// call is retried until its deadline, not a number of times, so that a service restarting
// (seconds) is ridden out within the default deadline (DEFAULT_TIMEOUT_MS, 10 s); a call
// without a deadline then makes at most UNTIMED_ATTEMPTS attempts.
import type { StatusName } from "./errors.js";

export interface RetryPolicy {
  /** Attempts in all, the first included (1: never retry; Infinity: until the deadline). */
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  backoffMultiplier: number;
  /** Statuses worth another attempt. */
  retryableStatuses: readonly StatusName[];
}

/** What clients use unless `retry` says otherwise: retried until the call's deadline. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxAttempts: Infinity,
  initialBackoffMs: 100,
  maxBackoffMs: 1000,
  backoffMultiplier: 2,
  retryableStatuses: Object.freeze(["UNAVAILABLE", "CANCELLED"] as StatusName[]),
});

/** Attempts of a call without a deadline under a policy of `maxAttempts: Infinity`. */
export const UNTIMED_ATTEMPTS = 10;

/** One attempt, never retried (`retry: false` means the same). */
export const NO_RETRY: RetryPolicy = Object.freeze({ ...DEFAULT_RETRY, maxAttempts: 1 });

/** The longest sleep before retry number `retry` (1 for the first retry). */
export function backoffCapMs(policy: RetryPolicy, retry: number): number {
  return Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.backoffMultiplier ** (retry - 1));
}

/** The policy a client option names: a policy, `false` (none), or absent (the default). */
export function resolveRetry(option: RetryPolicy | false | undefined): RetryPolicy {
  if (option === false) return NO_RETRY;
  return option ?? DEFAULT_RETRY;
}

function durationMs(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value);
  if (!text.endsWith("s")) throw new Error(`a service config duration ends with "s": ${text}`);
  return Number(text.slice(0, -1)) * 1000;
}

/** The parts of a gRPC service config (gRPC's A6 JSON) a client follows. */
export interface ServiceConfig {
  methodConfig?: Array<{
    name?: Array<{ service?: string; method?: string }>;
    timeout?: string;
    retryPolicy?: {
      maxAttempts?: number;
      initialBackoff?: string;
      maxBackoff?: string;
      backoffMultiplier?: number;
      retryableStatusCodes?: string[];
    };
  }>;
  loadBalancingConfig?: unknown[];
}

/** The first methodConfig's retryPolicy as a RetryPolicy; undefined when there is none. */
export function retryFromServiceConfig(config: ServiceConfig): RetryPolicy | undefined {
  const policy = config.methodConfig?.find((m) => m.retryPolicy)?.retryPolicy;
  if (!policy) return undefined;
  const statuses = (policy.retryableStatusCodes ?? []).map((s) => s.toUpperCase() as StatusName);
  return {
    maxAttempts: policy.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
    initialBackoffMs: durationMs(policy.initialBackoff, DEFAULT_RETRY.initialBackoffMs),
    maxBackoffMs: durationMs(policy.maxBackoff, DEFAULT_RETRY.maxBackoffMs),
    backoffMultiplier: policy.backoffMultiplier ?? DEFAULT_RETRY.backoffMultiplier,
    retryableStatuses: statuses.length ? statuses : DEFAULT_RETRY.retryableStatuses,
  };
}

/** The first methodConfig's timeout in milliseconds; undefined when there is none. */
export function timeoutFromServiceConfig(config: ServiceConfig): number | undefined {
  const timeout = config.methodConfig?.find((m) => m.timeout)?.timeout;
  return timeout === undefined ? undefined : durationMs(timeout, 0);
}

/** Waits `ms`, or less when `signal` aborts (the next attempt then reports the abort). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails with a status the policy does not retry, runs out
 * of attempts (UNTIMED_ATTEMPTS for an unbounded policy without a deadline), or the next
 * sleep would end past `deadline` (epoch ms); then rethrows.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  signal: AbortSignal,
  deadline: number | undefined,
  attempt: () => Promise<T>,
  random: () => number = Math.random,
): Promise<T> {
  for (let made = 1; ; made++) {
    try {
      return await attempt();
    } catch (err) {
      const status = (err as { status?: StatusName }).status;
      const limit = deadline === undefined && policy.maxAttempts === Infinity ? UNTIMED_ATTEMPTS : policy.maxAttempts;
      if (made >= limit || signal.aborted || !status || !policy.retryableStatuses.includes(status)) {
        throw err;
      }
      const delay = random() * backoffCapMs(policy, made);
      if (deadline !== undefined && Date.now() + delay >= deadline) throw err;
      await sleep(delay, signal);
    }
  }
}
