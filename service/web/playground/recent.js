// What the others did since your last move, said under the pile where you look ("Left: drew
// 2, melded 8♠ 8♠ 8♥, discarded 6♠"), and the cards you just drew or took, marked in your
// hand. Read from the moves the page recorded (log.js), as your seat saw them. Uses the
// helpers of playground.js, cards.js, names.js and log.js once the page has started.
"use strict";

// Event type -> the words of one part of a move ({cards}, {count} filled in).
const RECENT_PARTS = {
  CARDS_DRAWN: "recent.drew", PILE_TAKEN: "recent.tookPile", TOP_CARD_TAKEN: "recent.tookTop",
  RED_THREE_LAID: "recent.redThree", MELD_CREATED: "recent.melded", MELD_EXTENDED: "recent.added",
  WILD_SWAPPED: "recent.swapped", DISCARDED: "recent.discarded", PERMISSION_ASKED: "recent.asked",
  WENT_OUT: "recent.wentOut",
};

// One event as a part of the sentence: cards another seat drew stay a count.
function recentPart(e) {
  const key = RECENT_PARTS[e.type];
  if (!key) return null;
  const codes = e.cards || [];
  const shown = e.type === "CARDS_DRAWN" && !codes.length ? [] : inlineCards(codes);
  const count = String(codes.length || e.cardCount || 0);
  if (e.type === "CARDS_DRAWN" && !codes.length) return [t("recent.drewCount", { count })];
  return fill(t(key), { cards: shown, count });
}

// The others' moves since your last turn ended (newest last), each one line: they stay in
// view through your whole turn.
function recentMoves() {
  const me = mySeat();
  const moves = [];
  for (const entry of state.history) {
    if (entry.kind !== "move") continue;
    const events = entry.views[me] || entry.events;
    if (entry.seat === me) {
      if (events.some((e) => e.type === "DISCARDED" || e.type === "WENT_OUT")) moves.length = 0;
      continue;
    }
    const parts = events.map(recentPart).filter(Boolean);
    // a computer's turn is several moves (draw, meld, discard): one line says them all
    const last = moves[moves.length - 1];
    if (last && last.seat === entry.seat) last.parts.push(...parts);
    else if (parts.length) moves.push({ seat: entry.seat, parts });
  }
  return moves;
}

// Under the pile: a line for each of the others' moves since yours, read out as it comes.
function renderRecent() {
  const box = $("recent");
  const me = mySeat();
  if (me === null) { box.replaceChildren(); box.hidden = true; return; }
  const lines = recentMoves().slice(-(state.snapshot.seats.length + 1));
  box.hidden = !lines.length;
  box.replaceChildren(...lines.map((m) => el("li", { "data-seat": m.seat },
    el("b", {}, seatName(m.seat)), ": ", ...m.parts.flatMap((p, i) => (i ? [", ", ...p] : p)))));
}

// The cards your turn's draw or take brought, to mark in the hand until your turn ends.
function freshCards() {
  const me = mySeat();
  const fresh = [];
  for (const entry of [...state.history].reverse()) {
    if (entry.kind !== "move" || entry.seat !== me) break;
    for (const e of entry.views[me] || entry.events) {
      if (["CARDS_DRAWN", "PILE_TAKEN", "TOP_CARD_TAKEN"].includes(e.type)) fresh.push(...(e.cards || []));
    }
  }
  return fresh;
}

// The seat another than yours whose last move put the pile's top card there, or null.
function discardedBy() {
  const me = mySeat();
  const last = [...state.history].reverse().find((e) => e.kind === "move");
  if (me === null || !last || last.seat === me) return null;
  return last.events.some((e) => e.type === "DISCARDED") ? last.seat : null;
}
