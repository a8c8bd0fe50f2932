// verifyDeal needs no server: held to the one set of vectors the service's check and the
// Python client are held to (tests/deal_vectors.json, written by tests/deal_vectors.py).
// The deals are replayed on a real server for their views; every view at every ply must
// verify offline, each forgery the file names must be refused with the problems it names,
// and each request given whole must be answered (or refused) as the service answered it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  ActionSchema, AdjudicatorError, DealRequestSchema, RulesetSchema, SnapshotSchema, clone, createRestClient,
  dealCommitment, equals, fromJson, shuffleSeed, verifyDeal, type Ruleset, type Snapshot,
} from "@samba-adjudicator/client";
import { startServer, type Server } from "./server.js";

const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
interface DealVector { name: string; deal: { seed: string; seedContributions: string[] } & Record<string, unknown>; ruleset: object; actions: object[] }
interface RequestVector { name: string; request: { deal: object; seed: string; seedContributions?: string[] }; verified?: boolean; problems?: string[][]; refused?: object }
const VECTORS: { forgeries: Record<string, { expect: string[][] }>; deals: DealVector[]; requests: RequestVector[] } =
  JSON.parse(readFileSync(`${REPO}tests/deal_vectors.json`, "utf8"));

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

test("the documented vectors (docs/dealing.md §5)", async () => {
  assert.equal(await dealCommitment("golden-1"), "54750da041ce5f1a06fd4eab38bc903695b7a165ef816fe1d883743f5a26cd2f");
  assert.equal(await shuffleSeed("golden-1", ["alice", "bob"]), "dcfd20ab1d473a463fbfe000dd7cdc220faafd67c0626be610af2dc42afef82b");
  assert.equal(await shuffleSeed("golden-1", []), "golden-1");
});

type Answer = { verified: boolean; problems: string[][] } | { refused: { status: string; reason: string; violations: string[][] } };

async function answer(deal: Snapshot, seed: string, contributions: readonly string[], ruleset: Ruleset): Promise<Answer> {
  try {
    const found = await verifyDeal(deal, seed, contributions, ruleset);
    return { verified: found.verified, problems: found.problems.map((p) => [p.field, p.reason]) };
  } catch (e) {
    if (!(e instanceof AdjudicatorError)) throw e;
    return { refused: { status: e.status, reason: e.reason, violations: e.fieldViolations.map((v) => [v.field, v.reason]) } };
  }
}

const plainRuleset = () => fromJson(RulesetSchema, VECTORS.deals.find((d) => d.name === "classic-2")!.ruleset as never);

for (const vector of VECTORS.requests) {
  test(`as the service answers: ${vector.name}`, async () => {
    const { deal, seed, seedContributions = [] } = vector.request;
    const got = await answer(fromJson(SnapshotSchema, deal as never), seed, seedContributions, plainRuleset());
    const want = vector.refused ? { refused: vector.refused } : { verified: vector.verified ?? false, problems: vector.problems ?? [] };
    assert.deepEqual(got, want);
  });
}

// -- the forgeries the file names (tests/test_deal_vectors.py writes them the same way) ----

const hidden = (s: Snapshot["seats"][number]) => s.hand.length === 0 && (s.handCount > 0 || s.handHidden);
const shownSeats = (view: Snapshot) => view.seats.flatMap((s, i) => (s.dealt.length > 0 || !hidden(s) ? [i] : []));

type Forgery = [name: string, seat: number | undefined, deal: Snapshot, seed: string, contributions: string[]];

async function* forged(view: Snapshot, seed: string, given: string[], seeds: boolean): AsyncGenerator<Forgery> {
  const edit = (change: (s: Snapshot) => void) => {
    const copy = clone(SnapshotSchema, view);
    change(copy);
    return copy;
  };
  const other = await dealCommitment(seed + "x");
  yield ["commitment-other", undefined, edit((s) => { s.dealCommitment = other; }), seed, given];
  yield ["commitment-removed", undefined, edit((s) => { s.dealCommitment = ""; }), seed, given];
  yield ["dealer-next", undefined, edit((s) => { s.dealer = (s.dealer + 1) % s.seats.length; }), seed, given];
  yield ["deal-number-next", undefined, edit((s) => { s.dealNumber = (s.dealNumber || 1) + 1; }), seed, given];
  for (const i of shownSeats(view)) {
    const dealt = view.seats[i]!.dealt;
    yield ["dealt-emptied", i, edit((s) => { s.seats[i]!.dealt = []; }), seed, given];
    if (dealt.length > 0) {
      const changed = [dealt[0] === "AS" ? "KS" : "AS", ...dealt.slice(1)];
      yield ["dealt-card-changed", i, edit((s) => { s.seats[i]!.dealt = changed; }), seed, given];
      const rotated = [...dealt.slice(1), dealt[0]!];
      if (rotated.join(" ") !== dealt.join(" ")) yield ["dealt-rotated", i, edit((s) => { s.seats[i]!.dealt = rotated; }), seed, given];
    }
  }
  for (const [i, s] of view.seats.entries()) {
    if (s.handHidden && s.handCount === 0 && s.dealt.length === 0) {
      yield ["hidden-cleared", i, edit((c) => { c.seats[i]!.handHidden = false; }), seed, given];
    }
  }
  if (seeds) {
    yield ["seed-other", undefined, view, seed + "x", given];
    yield ["contribution-changed", undefined, view, seed, [given[0] + "x", ...given.slice(1)]];
    yield ["contributions-reversed", undefined, view, seed, [...given].reverse()];
    yield ["contribution-dropped", undefined, view, seed, given.slice(0, -1)];
  }
}

function expected(name: string, seat: number | undefined, view: Snapshot): string[][] {
  return VECTORS.forgeries[name]!.expect.flatMap(([field, reason]) => {
    if (field !== "{shown}") return [[field!.replace("{seat}", String(seat)), reason!]];
    const shown = shownSeats(view);
    return shown.length ? shown.map((i) => [`deal.seats[${i}].dealt`, reason!]) : [["deal.seats", "NOTHING_TO_CHECK"]];
  });
}

// The file's sweep: every view of the first and final positions is forged (the seeds too),
// and at each ply between one view, the seats and then the spectator in turn.
const forgedHere = (ply: number, last: number, viewer: number, players: number) =>
  ply === 0 || ply === last || viewer === ply % (players + 1);

for (const vector of VECTORS.deals) {
  test(`${vector.name}: every view at every ply verifies, every forgery is refused`, async () => {
    const client = createRestClient({ baseUrl: server.restUrl });
    const { seed, seedContributions: given } = vector.deal;
    const ruleset = fromJson(RulesetSchema, vector.ruleset as never);
    const dealt = await client.deal(fromJson(DealRequestSchema, { ...vector.deal, includeViews: true } as never));
    assert.ok(equals(RulesetSchema, dealt.ruleset!, ruleset), "Deal answers the deal's ruleset");
    let snapshot = dealt.snapshot!;
    let views = [...dealt.views.map((v) => v.snapshot!), dealt.spectatorView!.snapshot!];
    const last = vector.actions.length;
    let forgeries = 0;
    for (let ply = 0; ply <= last; ply++) {
      for (const [viewer, view] of views.entries()) {
        const honest = viewer < views.length - 1 ? [] : [["deal.seats", "NOTHING_TO_CHECK"]];
        assert.deepEqual(await answer(view, seed, given, ruleset), { verified: honest.length === 0, problems: honest }, `${ply} ${viewer}`);
        if (!forgedHere(ply, last, viewer, view.seats.length)) continue;
        for await (const [name, seat, deal, s, c] of forged(view, seed, given, ply === 0 || ply === last)) {
          const got = await answer(deal, s, c, ruleset);
          assert.ok("verified" in got && !got.verified, `${ply} ${viewer} ${name}`);
          const fields = new Set(got.problems.map((p) => p.join(" ")));
          for (const want of expected(name, seat, view)) assert.ok(fields.has(want.join(" ")), `${ply} ${viewer} ${name} ${want}`);
          forgeries += 1;
        }
      }
      if (ply === last) break;
      const next = await client.applyAction({ snapshot, action: fromJson(ActionSchema, vector.actions[ply] as never), includeViews: true });
      assert.ok(next.legal, `action ${ply}`);
      snapshot = next.snapshot!;
      views = [...next.views.map((v) => v.snapshot!), next.spectatorView!.snapshot!];
    }
    assert.ok(forgeries > last);
  });
}
