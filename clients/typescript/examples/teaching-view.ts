// Recipe: a teaching view with every hand open, and every hand revealed once a deal is over
// (docs/api.md#revealed-views). GetPlayerView's `reveal`: REVEAL_TEACHING opens every hand at
// any point (a teaching table, the game server's decision); REVEAL_FINISHED_DEAL opens them
// once the deal is over and is refused while it is in play (INVALID_ARGUMENT on `reveal`).
// Both need the full snapshot; the stock stays hidden; a revealed view is not signed.
import { AdjudicatorError, GetPlayerViewRequest_Reveal, Turn_Phase, type AdjudicatorClient, type Snapshot } from "@samba-adjudicator/client";

const openHands = (view: Snapshot) => view.seats.filter((s) => s.hand.length > 0 && !s.handHidden).length;

export async function teachingAndReview(client: AdjudicatorClient) {
  let snapshot = (await client.deal({ players: 4, seed: "teaching-recipe" })).snapshot!;
  const teaching = await client.getPlayerView({ snapshot, seat: 0, reveal: GetPlayerViewRequest_Reveal.TEACHING });
  let inPlay: string[] = [];
  try {
    await client.getPlayerView({ snapshot, seat: 0, reveal: GetPlayerViewRequest_Reveal.FINISHED_DEAL });
  } catch (e) {
    if (!(e instanceof AdjudicatorError)) throw e;
    inPlay = [e.status, ...e.fieldViolations.map((v) => v.field)];
  }
  while (snapshot.turn!.phase !== Turn_Phase.OVER) {
    const seat = snapshot.turn!.awaitingSeats[0]!;
    snapshot = (await client.applyAction({ snapshot, computer: { seat, seed: `${snapshot.ply}`, budgetMs: 20 } })).snapshot!;
  }
  const review = (await client.getPlayerView({ snapshot, reveal: GetPlayerViewRequest_Reveal.FINISHED_DEAL })).snapshot!;
  return { teachingOpenHands: openHands(teaching.snapshot!), inPlay, reviewOpenHands: openHands(review), reviewHands: review.seats.map((s) => s.hand.length) };
}
