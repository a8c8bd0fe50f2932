// Recipe: a player reconnecting (docs/guide.md#recipes). The game server holds the table's
// current snapshot, so it re-sends the seat its view of it (GetPlayerView), with its legal
// actions when the game awaits it. Nothing is replayed and nothing is kept per player.
import { SuggestActionRequest_Level, type AdjudicatorClient, type Action, type SeatView, type Snapshot } from "@samba-adjudicator/client";

export async function rejoin(client: AdjudicatorClient, snapshot: Snapshot, seat: number) {
  const view = (await client.getPlayerView({ snapshot, seat })).snapshot!;
  let actions: Action[] = [];
  if (snapshot.turn!.awaitingSeats.includes(seat)) actions = (await client.listLegalActions({ snapshot, seat })).actions;
  return { view, actions };
}

export async function playAndRejoin(client: AdjudicatorClient, away = 2, moves = 12) {
  let answer: { snapshot?: Snapshot; views: SeatView[] } = await client.deal({ players: 4, seed: "reconnect-recipe", includeViews: true });
  for (let i = 0; i < moves; i++) {
    // seat `away` is offline: the views sent to it are lost
    const snapshot = answer.snapshot!;
    const seat = snapshot.turn!.awaitingSeats[0]!;
    answer = await client.applyAction({ snapshot, computer: { seat, level: SuggestActionRequest_Level.BASIC, seed: `${snapshot.ply}` }, includeViews: true });
  }
  const { view, actions } = await rejoin(client, answer.snapshot!, away);
  return { view, lastSent: answer.views[away]!.snapshot!, actions: actions.length };
}
