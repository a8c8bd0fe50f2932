// The recipes (examples/match, turn-timer, undo, reconnect, teaching-view) against a real
// server, over REST and gRPC; the match also against a signing server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRestClient, type AdjudicatorClient } from "@samba-adjudicator/client";
import { createGrpcClient } from "@samba-adjudicator/client/grpc";
import { playMatch } from "../examples/match.js";
import { playWithTimer } from "../examples/turn-timer.js";
import { meldAndUndo } from "../examples/undo.js";
import { playAndRejoin } from "../examples/reconnect.js";
import { teachingAndReview } from "../examples/teaching-view.js";
import { startServer, type Server } from "./server.js";

let server: Server;
let signing: Server;
before(async () => {
  server = await startServer();
  signing = await startServer({ SAMBA_SNAPSHOT_KEYS: `k1:${Buffer.alloc(32, 7).toString("base64")}` });
});
after(async () => {
  await server?.stop();
  await signing?.stop();
});

async function onBoth<T>(s: () => Server, run: (client: AdjudicatorClient) => Promise<T>): Promise<T[]> {
  const grpc = createGrpcClient({ baseUrl: s().grpcUrl });
  try {
    return [await run(createRestClient({ baseUrl: s().restUrl })), await run(grpc)];
  } finally {
    grpc.close();
  }
}

test("a whole match across deals, plain and signed", async () => {
  for (const s of [() => server, () => signing]) {
    for (const report of await onBoth(s, (c) => playMatch(c, "table-1", 2))) {
      assert.equal(report.deals, 2);
      assert.equal(report.matchTotals.length, 2);
      assert.ok(report.draw || report.winnerSide !== undefined);
    }
  }
});

test("a timed-out player is moved for and their late move refused", async () => {
  for (const report of await onBoth(() => server, (c) => playWithTimer(c, 50))) {
    assert.ok(report.forced >= 1, JSON.stringify(report));
    assert.equal(report.lateRefused, report.forced);
  }
});

test("a meld is undone, a draw is not", async () => {
  for (const report of await onBoth(() => server, meldAndUndo)) {
    assert.ok(report.restored);
    assert.ok(report.afterUndoLegal);
    assert.ok(report.notUndoable.includes("CARDS_DRAWN"), JSON.stringify(report));
  }
});

test("a reconnecting player gets its view of the current snapshot", async () => {
  for (const report of await onBoth(() => server, (c) => playAndRejoin(c))) {
    assert.deepEqual(report.view, report.lastSent);
    assert.deepEqual(report.view.seats.map((s) => s.handHidden), [true, true, false, true]);
  }
});

test("a teaching view and a finished deal's review open every hand", async () => {
  const [rest, grpc] = await onBoth(() => server, teachingAndReview);
  assert.deepEqual(rest, grpc);
  assert.equal(rest!.teachingOpenHands, 4);
  assert.deepEqual(rest!.inPlay, ["INVALID_ARGUMENT", "reveal"]);
  assert.equal(rest!.reviewOpenHands, rest!.reviewHands.filter((n) => n > 0).length);
});
