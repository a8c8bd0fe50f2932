// Recipe: a turn timer, and the forced move of a player who timed out (docs/guide.md#recipes).
// The awaited seat has `turnMs` to move. When the time is up the game server moves for it
// with ApplyAction's `computer` (chosen from that seat's view only, applied in one call),
// not with "the first legal action", a fixed choice that plays badly (the first meld listed,
// the first discard). Every move sends `expectedPly`, so the player's move arriving after
// the forced one is refused (`legal: false`, STALE_SNAPSHOT) rather than applied to the
// wrong position. Here seat 2 never answers in time; the others answer at once.
import { SuggestActionRequest_Level, Turn_Phase, type Action, type AdjudicatorClient, type Snapshot } from "@samba-adjudicator/client";

const ASLEEP = 2;

/** What the player at `seat` sends (in a real game: their device's message). */
async function playerMove(client: AdjudicatorClient, snapshot: Snapshot, seat: number, signal: AbortSignal): Promise<Action> {
  if (seat === ASLEEP) return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("late"))));
  const suggested = await client.suggestAction({ snapshot, seat, level: SuggestActionRequest_Level.RANDOM, seed: `${snapshot.ply}` });
  return suggested.action!;
}

function timeout(ms: number, signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    signal.addEventListener("abort", () => clearTimeout(timer));
  });
}

export async function playWithTimer(client: AdjudicatorClient, turnMs: number) {
  let snapshot = (await client.deal({ players: 4, seed: "turn-timer" })).snapshot!;
  let forced = 0;
  let lateRefused = 0;
  while (snapshot.turn!.phase !== Turn_Phase.OVER) {
    const seat = snapshot.turn!.awaitingSeats[0]!;
    const done = new AbortController();
    const action = await Promise.race([playerMove(client, snapshot, seat, done.signal).catch(() => undefined), timeout(turnMs, done.signal)]);
    done.abort();
    if (action) {
      const answer = await client.applyAction({ snapshot, action: { ...action, expectedPly: snapshot.ply } });
      if (!answer.legal) throw new Error(answer.violations.map((v) => v.code).join(", "));
      snapshot = answer.snapshot!;
      continue;
    }
    // the time is up: the service moves for the seat
    const computer = { seat, level: SuggestActionRequest_Level.BASIC, seed: `timer-${snapshot.ply}`, budgetMs: 20 };
    const answer = await client.applyAction({ snapshot, computer });
    forced += 1;
    // the sleeper's move arrives late, for the position before the forced move
    const late = await client.applyAction({
      snapshot: answer.snapshot,
      action: { seat, kind: { case: "drawStock", value: {} }, expectedPly: snapshot.ply },
    });
    if (!late.legal && late.violations.some((v) => v.code === "STALE_SNAPSHOT")) lateRefused += 1;
    snapshot = answer.snapshot!;
  }
  return { forced, lateRefused, ply: snapshot.ply };
}
