// verifyDeal needs no server: checked against deals and VerifyDeal answers of a real one.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createRestClient, dealCommitment, shuffleSeed, verifyDeal } from "@samba-adjudicator/client";
import { startServer, type Server } from "./server.js";

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

const seed = "ts-secret";
const contributions = ["alice", "bob", "carol", "dave"];

test("the documented vectors (docs/dealing.md §5)", async () => {
  assert.equal(await dealCommitment("golden-1"), "54750da041ce5f1a06fd4eab38bc903695b7a165ef816fe1d883743f5a26cd2f");
  assert.equal(await shuffleSeed("golden-1", ["alice", "bob"]), "dcfd20ab1d473a463fbfe000dd7cdc220faafd67c0626be610af2dc42afef82b");
  assert.equal(await shuffleSeed("golden-1", []), "golden-1");
});

for (const profile of ["classic", "spanish", "canasta", "pagat"]) {
  test(`${profile}: the true seeds verify, each forgery is refused`, async () => {
    const client = createRestClient({ baseUrl: server.restUrl });
    const ruleset = await client.getRuleset({ profile });
    const { snapshot, views } = await client.deal({ ruleset: { profile }, players: 4, seed, seedContributions: contributions, includeViews: true });
    assert.equal(snapshot!.dealCommitment, await dealCommitment(seed));
    assert.deepEqual(await verifyDeal(snapshot!, seed, contributions, ruleset), { verified: true, problems: [] });
    assert.equal((await verifyDeal(views[1]!.snapshot!, seed, contributions, ruleset)).verified, true);
    const server_ = await client.verifyDeal({ deal: snapshot, seed, seedContributions: contributions });
    assert.equal(server_.verified, true);
    for (const [s, c] of [[seed + "x", contributions], [seed, contributions.slice(1)], [seed, [...contributions].reverse()]] as const) {
      const mine = await verifyDeal(snapshot!, s, c, ruleset);
      assert.equal(mine.verified, false);
      assert.ok(mine.problems.some((p) => p.field === "deal.seats[0].dealt"));
    }
  });
}
