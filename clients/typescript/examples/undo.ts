// Recipe: undo within a turn (docs/guide.md#undo-within-a-turn). The service is stateless:
// the game server keeps the snapshot from before a move and makes it the table again. A move
// may be taken back while it revealed nothing and involved no one else: the turn is still the
// same seat's, in PLAY, and its events are only melds laid or extended and wilds swapped. A
// draw from the stock (the drawer has seen new cards), a pile take, a red three laid, a
// go-out question or answer, a penalty, a discard and the end of the deal cannot be undone.
import { Event_Type, Turn_Phase, type AdjudicatorClient, type ApplyActionResponse, type Snapshot } from "@samba-adjudicator/client";

const UNDOABLE = new Set([Event_Type.MELD_CREATED, Event_Type.MELD_EXTENDED, Event_Type.WILD_SWAPPED, Event_Type.CANASTA_COMPLETED, Event_Type.SAMBA_COMPLETED]);

/** The game server's table: the snapshot, and the snapshots a player may go back to. */
export class Table {
  undoStack: Snapshot[] = [];
  constructor(public snapshot: Snapshot) {}

  applied(answer: ApplyActionResponse): void {
    const before = this.snapshot;
    const after = answer.snapshot!;
    const undoable =
      after.turn!.phase === Turn_Phase.PLAY && after.turn!.seat === before.turn!.seat && answer.events.every((e) => UNDOABLE.has(e.type));
    this.undoStack = undoable ? [...this.undoStack, before] : [];
    this.snapshot = after;
  }

  undo(): boolean {
    const previous = this.undoStack.pop();
    if (previous) this.snapshot = previous;
    return previous !== undefined;
  }
}

export async function meldAndUndo(client: AdjudicatorClient) {
  const table = new Table((await client.deal({ players: 4, seed: "undo-recipe" })).snapshot!);
  const notUndoable = new Set<string>();
  for (;;) {
    const snapshot = table.snapshot;
    const seat = snapshot.turn!.awaitingSeats[0]!;
    const { actions } = await client.listLegalActions({ snapshot, seat });
    const meld = actions.find((a) => a.kind.case === "meld");
    const answer = meld ? await client.applyAction({ snapshot, action: meld }) : await client.applyAction({ snapshot, computer: { seat, seed: `${snapshot.ply}` } });
    table.applied(answer);
    if (meld && table.undo()) {
      // the player changed their mind: the table is the snapshot from before the meld
      const after = await client.applyAction({ snapshot: table.snapshot, computer: { seat, seed: "after-undo" } });
      return { ply: table.snapshot.ply, restored: table.snapshot === snapshot, afterUndoLegal: after.legal, notUndoable: [...notUndoable].sort() };
    }
    if (table.undoStack.length === 0) answer.events.forEach((e) => notUndoable.add(Event_Type[e.type]));
  }
}
