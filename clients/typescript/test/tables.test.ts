// The table key (`x-samba-table`, ./src/tables.ts) every call carries: the deal's commitment,
// from a Deal's seed or the snapshot a request carries, or the caller's `table`. Observed on
// the requests the REST client sends to a real server (its `fetch` option); nginx's log in
// tests/test_scale.py sees it from both transports.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { TABLE_HEADER, createRestClient, dealCommitment, tableKey } from "@samba-adjudicator/client";
import { startServer, type Server } from "./server.js";

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

test("the key is the commitment of the deal's seed, then of the snapshot a request carries", async () => {
  assert.equal(await tableKey("deal", { seed: "t-1", players: 4 }), await dealCommitment("t-1"));
  assert.equal(await tableKey("listLegalActions", { snapshot: { dealCommitment: "c0ffee" } }), "c0ffee");
  assert.equal(await tableKey("deal", { previous: { dealCommitment: "c0ffee" } }), "c0ffee");
  assert.equal(await tableKey("verifyDeal", { deal: { dealCommitment: "c0ffee" }, seed: "s" }), "c0ffee");
  assert.equal(await tableKey("listRulesets", {}), undefined);
});

test("every call of a deal sends its key; a caller's key wins", async () => {
  const sent: (string | null)[] = [];
  const recording: typeof fetch = (input, init) => {
    sent.push(new Headers(init?.headers).get(TABLE_HEADER));
    return fetch(input, init);
  };
  const client = createRestClient({ baseUrl: server.restUrl, fetch: recording });
  const { snapshot } = await client.deal({ players: 4, seed: "ts-table" });
  await client.listLegalActions({ snapshot });
  await client.listLegalActions({ snapshot }, { table: "t-9" });
  await client.listRulesets({});
  const key = await dealCommitment("ts-table");
  assert.equal(snapshot!.dealCommitment, key);
  assert.deepEqual(sent, [key, key, "t-9", null]);
});
