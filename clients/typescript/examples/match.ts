// Recipe: a whole match across deals, as a game server keeps it (docs/guide.md#recipes).
// Each deal after the first is dealt from the previous deal's final snapshot (`previous`):
// the service carries the match scores, deal number, dealer, ruleset and players over, so the
// match is as trustworthy as its snapshots (signed when the service signs: store them exactly
// as returned). The match is over when a deal's score says `matchOver`; a Deal after that
// answers FAILED_PRECONDITION `MATCH_OVER`. Every seat here is a computer player
// (ApplyAction with `computer`): one call per move.
import { randomBytes } from "node:crypto";
import { SuggestActionRequest_Level, Turn_Phase, type AdjudicatorClient, type ApplyActionResponse, type DealResponse } from "@samba-adjudicator/client";

/** Moves until the deal is over; the last answer carries `score`. */
async function playDeal(client: AdjudicatorClient, first: DealResponse, table: string): Promise<ApplyActionResponse> {
  let snapshot = first.snapshot!;
  let answer: ApplyActionResponse | undefined;
  while (snapshot.turn!.phase !== Turn_Phase.OVER) {
    const seat = snapshot.turn!.awaitingSeats[0]!;
    const computer = { seat, level: SuggestActionRequest_Level.BASIC, seed: `${table}-${snapshot.ply}`, budgetMs: 20 };
    answer = await client.applyAction({ snapshot, computer });
    if (!answer.legal) throw new Error("a computer move is always legal");
    snapshot = answer.snapshot!;
  }
  return answer!;
}

export async function playMatch(client: AdjudicatorClient, table: string, maxDeals = 0) {
  // a fresh secret seed per deal: the seed reveals every hand, keep it on the server
  const seed = () => randomBytes(16).toString("hex");
  const overrides = maxDeals ? { maxDeals } : undefined; // a shorter match: the last deal ends it
  let dealt = await client.deal({ ruleset: { profile: "classic", overrides }, players: 4, seed: seed() });
  const deals: number[][] = [];
  for (;;) {
    const last = await playDeal(client, dealt, table);
    const score = last.score!;
    deals.push(score.sides.map((s) => s.dealTotal));
    if (score.matchOver) {
      return { deals: deals.length, matchTotals: score.sides.map((s) => s.matchTotal), winnerSide: score.winnerSide, draw: score.draw };
    }
    dealt = await client.deal({ previous: last.snapshot, seed: seed() }); // the final snapshot as returned
  }
}
