// What each seat may receive after an action (docs/guide.md, step 6): asked for with
// `includeViews`, the answer carries each seat's view of the snapshot and the events as that
// seat may see them (other players' drawn cards counted in `cardCount`, not shown), signed
// like every snapshot; the game server forwards them as they are.
import { type Action, type AdjudicatorClient, type Snapshot } from "@samba-adjudicator/client";

/** The answer, and one message per seat: its view of the new snapshot and its events. */
export async function applyForEachSeat(client: AdjudicatorClient, snapshot: Snapshot, action: Action) {
  const answer = await client.applyAction({ snapshot, action, includeViews: true });
  const messages = answer.views.map((v) => ({ seat: v.seat, snapshot: v.snapshot!, events: v.events }));
  return { answer, messages };
}
