// The retry policy: UNAVAILABLE is sent again with capped exponential backoff and jitter,
// nothing else is; `retry: false` turns it off; a gRPC service config's retryPolicy and
// timeout are followed. Against a real replica that drains and is restarted on its ports.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AdjudicatorError,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  SuggestActionRequest_Level,
  UNTIMED_ATTEMPTS,
  backoffCapMs,
  createRestClient,
  retryFromServiceConfig,
  withRetry,
  type AdjudicatorClient,
  type RetryPolicy,
} from "@samba-adjudicator/client";
import { createGrpcClient, type GrpcAdjudicatorClient } from "@samba-adjudicator/client/grpc";
import { startServer, type Server } from "./server.js";

const servers: Server[] = [];
const grpcClients: GrpcAdjudicatorClient[] = [];
after(async () => {
  for (const c of grpcClients) c.close();
  await Promise.all(servers.map((s) => s.stop()));
});

async function rejection(promise: Promise<unknown>): Promise<AdjudicatorError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AdjudicatorError, `not an AdjudicatorError: ${err}`);
    return err;
  }
  assert.fail("the call succeeded");
}

test("backoff is capped exponential", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((n) => backoffCapMs(DEFAULT_RETRY, n)),
    [100, 200, 400, 800, 1000, 1000],
  );
});

test("a service config's retryPolicy reads as one", () => {
  const policy = retryFromServiceConfig({
    methodConfig: [
      {
        name: [{ service: "samba.v1.Adjudicator" }],
        retryPolicy: {
          maxAttempts: 4,
          initialBackoff: "0.2s",
          maxBackoff: "3s",
          backoffMultiplier: 1.5,
          retryableStatusCodes: ["UNAVAILABLE", "resource_exhausted"],
        },
      },
    ],
  });
  assert.deepEqual(policy, {
    maxAttempts: 4,
    initialBackoffMs: 200,
    maxBackoffMs: 3000,
    backoffMultiplier: 1.5,
    retryableStatuses: ["UNAVAILABLE", "RESOURCE_EXHAUSTED"],
  });
  assert.equal(retryFromServiceConfig({ methodConfig: [{ timeout: "1s" }] }), undefined);
});

test("a refused connection is retried maxAttempts times, then reported", async () => {
  let attempts = 0;
  const counting: typeof fetch = (input, init) => {
    attempts += 1;
    return fetch(input, init);
  };
  const policy: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: 3, initialBackoffMs: 10 };
  const refused = "http://127.0.0.1:9";
  const err = await rejection(createRestClient({ baseUrl: refused, fetch: counting, retry: policy }).listRulesets({}));
  assert.equal(err.status, "UNAVAILABLE");
  assert.equal(attempts, 3);
  attempts = 0;
  await rejection(createRestClient({ baseUrl: refused, fetch: counting, retry: false }).listRulesets({}));
  assert.equal(attempts, 1);
});

test("an invalid argument is not retried", async () => {
  const server = await startServer();
  servers.push(server);
  let attempts = 0;
  const counting: typeof fetch = (input, init) => {
    attempts += 1;
    return fetch(input, init);
  };
  const err = await rejection(createRestClient({ baseUrl: server.restUrl, fetch: counting }).checkMeld({ cards: ["XX"] }));
  assert.equal(err.status, "INVALID_ARGUMENT");
  assert.equal(attempts, 1);
});

test("the gRPC client follows a service config's timeout", async () => {
  const slow = await startServer({ SAMBA_TEST_DELAY_SECONDS: "2" });
  servers.push(slow);
  const client = createGrpcClient({
    baseUrl: slow.grpcUrl,
    serviceConfig: { methodConfig: [{ name: [{ service: "samba.v1.Adjudicator" }], timeout: "0.3s" }] },
  });
  grpcClients.push(client);
  assert.equal((await rejection(client.listRulesets({}))).status, "DEADLINE_EXCEEDED");
});

const PATIENT: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: 100, initialBackoffMs: 50, maxBackoffMs: 200 };

const makers: Record<string, (s: Server, retry: RetryPolicy | false) => AdjudicatorClient> = {
  rest: (s, retry) => createRestClient({ baseUrl: s.restUrl, retry, timeoutMs: 60_000 }),
  grpc: (s, retry) => {
    const c = createGrpcClient({ baseUrl: s.grpcUrl, retry, timeoutMs: 60_000 });
    grpcClients.push(c);
    return c;
  },
};

for (const [name, make] of Object.entries(makers)) {
  describe(`${name}: a draining replica`, () => {
    test("refuses without retry; with retry the call lands on its successor", async () => {
      const old = await startServer({ SAMBA_TEST_DELAY_SECONDS: "2", SAMBA_SHUTDOWN_GRACE_SECONDS: "5" });
      servers.push(old);
      const holding = fetch(`${old.restUrl}/v1/rulesets`).catch(() => undefined); // keeps it draining
      await new Promise((r) => setTimeout(r, 300));
      old.terminate();
      for (;;) {
        const ready = await fetch(`${old.restUrl}/readyz`).catch(() => undefined);
        if (ready?.status === 503) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      // readiness turns 503 at the signal; the servers refuse once what had reached them is
      // read (a call in that instant is still answered), so the refusal is awaited, bounded
      let refused: AdjudicatorError | undefined;
      for (let tries = 0; refused === undefined && tries < 50; tries += 1) {
        refused = await make(old, false).listRulesets({}).then(
          () => undefined,
          (err: unknown) => (err instanceof AdjudicatorError ? err : undefined),
        );
        if (refused === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(refused, "a draining replica refuses a call without retry");
      assert.equal(refused.status, "UNAVAILABLE");
      // a rolling restart: the successor binds the same ports once the old one has gone
      const successor = old.exited.then(async () => {
        const next = await startServer({}, ["--grpc-port", String(old.grpcPort), "--http-port", String(old.httpPort)]);
        servers.push(next);
        return next;
      });
      const answer = await make(old, PATIENT).listRulesets({});
      assert.ok(answer.rulesets.length > 0);
      await successor;
      await holding;
    });
  });
}

test("by default a call is retried until its deadline, not a number of times", async () => {
  const unavailable = new AdjudicatorError({ status: "UNAVAILABLE", message: "refused" });
  let attempts = 0;
  const failing = async () => {
    attempts += 1;
    await new Promise((r) => setTimeout(r, 5));
    throw unavailable;
  };
  const signal = new AbortController().signal;
  await assert.rejects(withRetry(DEFAULT_RETRY, signal, Date.now() + 300, failing, () => 0));
  assert.ok(attempts > 10, `${attempts} attempts in 300 ms`);
  attempts = 0;
  await assert.rejects(withRetry(DEFAULT_RETRY, signal, undefined, failing, () => 0));
  assert.equal(attempts, UNTIMED_ATTEMPTS); // no deadline: a bounded number of attempts
  assert.equal(DEFAULT_TIMEOUT_MS, 10_000);
});

const COMPUTERS = new Set([1, 3]);

/** A two-deal match, seats 1 and 3 computer players, one call per move; `onMove` after each. */
async function playMatch(client: AdjudicatorClient, seed: string, onMove: (moves: number) => void) {
  let moves = 0;
  let calls = 1;
  const extras = { includeLegalActions: true };
  let answer = await client.deal({
    ruleset: { profile: "classic", overrides: { maxDeals: 2 } },
    players: 4,
    seed: `${seed}-1`,
    ...extras,
  });
  for (let k = 0; ; k++) {
    let score = undefined as { matchOver: boolean } | undefined;
    let snapshot = answer.snapshot!;
    let next = answer.nextActions!;
    while (!score) {
      const seat = next.seat;
      const applied = await client.applyAction(
        COMPUTERS.has(seat)
          ? { snapshot, computer: { seat, level: SuggestActionRequest_Level.BASIC, seed }, ...extras }
          : { snapshot, action: next.actions[(moves * 7919) % next.actions.length], ...extras },
      );
      assert.ok(applied.legal);
      moves += 1;
      calls += 1;
      onMove(moves);
      snapshot = applied.snapshot!;
      score = applied.score;
      if (!score) next = applied.nextActions!;
    }
    if (score.matchOver) return { moves, calls };
    answer = await client.deal({ previous: snapshot, seed: `${seed}-2`, ...extras });
    calls += 1;
  }
}

for (const name of ["rest", "grpc"]) {
  test(`${name}: the default client finishes a match through a SIGKILL and a restart`, async () => {
    const first = await startServer();
    servers.push(first);
    const client =
      name === "rest" ? createRestClient({ baseUrl: first.restUrl }) : createGrpcClient({ baseUrl: first.grpcUrl });
    if ("close" in client) grpcClients.push(client as GrpcAdjudicatorClient);
    let restarted: Promise<Server> | undefined;
    const played = playMatch(client, `ts-sigkill-${name}`, (n) => {
      if (n !== 40) return;
      first.kill();
      restarted = first.exited.then(async () => {
        await new Promise((r) => setTimeout(r, 3000)); // down for 3 s, then its start-up
        const ports = ["--grpc-port", String(first.grpcPort), "--http-port", String(first.httpPort)];
        const next = await startServer({}, [...ports, "--admin-port", String(first.adminPort)]);
        servers.push(next);
        return next;
      });
    });
    let result: { moves: number; calls: number };
    try {
      result = await played;
    } finally {
      await restarted; // registered for the after() hook either way
    }
    assert.ok(restarted, "the server was killed");
    const { moves, calls } = result;
    assert.ok(moves > 40);
    assert.equal(calls, moves + 2); // two Deals, then one call per move
  });
}
