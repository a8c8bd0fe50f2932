// What each seat may receive after an action: its own view of the snapshot, and the events
// with other players' drawn cards stripped (docs/guide.md, step 6).
import {
  create,
  EventSchema,
  Event_Type,
  type AdjudicatorClient,
  type Event,
  type Snapshot,
} from "@samba-adjudicator/client";

/** The events as `viewer` may see them: only the drawer sees the cards of CARDS_DRAWN. */
export function eventsFor(viewer: number, events: Event[]): Event[] {
  return events.map((e) =>
    e.type === Event_Type.CARDS_DRAWN && e.seat !== viewer ? create(EventSchema, { ...e, cards: [] }) : e,
  );
}

/** One message per seat: its view of the snapshot and its events. */
export async function messagesForEachSeat(client: AdjudicatorClient, snapshot: Snapshot, events: Event[]) {
  return Promise.all(
    snapshot.seats.map(async (_, seat) => {
      const view = await client.getPlayerView({ snapshot, seat });
      return { seat, snapshot: view.snapshot!, events: eventsFor(seat, events) };
    }),
  );
}
