// Names a player reads: seats from where you sit (You, Left, Partner, Right; at six by their
// place), sides as yours or theirs, melds by their cards ("8s", "5♥-9♥"), scores with the
// language's digit groups. While exploring (no seat taken) seats and sides keep their numbers,
// as the rules and the API number them. Uses the helpers of playground.js once the page has
// started.
"use strict";

// -- seats and sides ------------------------------------------------------------------------

// The places round the table from your left (play passes to the left: the next seat is Left).
const PLACES = {
  2: ["you", "across"],
  3: ["you", "left", "right"],
  4: ["you", "left", "across", "right"],
  5: ["you", "left", "farLeft", "farRight", "right"],
  6: ["you", "left", "farLeft", "across", "farRight", "right"],
};

// The seat's name as the player says it: "Partner" for the seat across at four, its place
// otherwise ("Far left", marked a partner by its side); "seat 2" while exploring.
function seatName(seat, capital = true) {
  const me = mySeat();
  const s = state.snapshot;
  if (me === null || !s || !PLACES[s.seats.length]) return t(capital ? "seatTitle" : "seatN", { seat });
  const place = PLACES[s.seats.length][(seat - me + s.seats.length) % s.seats.length];
  const partner = place !== "you" && s.seats[seat].side === s.seats[me].side;
  return t(partner && s.seats.length === 4 ? "place.partner" : "place." + place);
}

// A side as the player says it: "Your side", or its seats' names ("Left & Right").
function sideName(side) {
  const me = mySeat();
  const s = state.snapshot;
  if (me === null || !s) return t("seatSide", { side });
  if (s.seats[me].side === side) return t("side.yours");
  return s.seats.filter((x) => x.side === side).map((x) => seatName(x.seat ?? 0)).join(" & ");
}

// A partner's seat wears the word (at six the places say where, not who).
const isPartner = (seat) => {
  const me = mySeat();
  return me !== null && seat !== me && state.snapshot.seats[seat].side === state.snapshot.seats[me].side;
};

// -- melds ----------------------------------------------------------------------------------

// A meld by its cards: a group by its rank ("8s"), a run by its ends ("5♥-9♥"), wild cards
// as "2s and jokers"; while exploring, by its id as the API names it.
function meldName(m) {
  if (mySeat() === null) return m.id;
  const naturals = (m.cards || []).filter((c) => !isWild(c));
  if (m.kind === "WILD_GROUP" || !naturals.length) return t("meldWilds");
  if (m.kind === "RUN") {
    const ends = [...naturals].sort((a, b) => rankIndex(a) - rankIndex(b));
    const face = (c) => rankOf(c) + SUIT_SYMBOLS[suitOf(c)];
    return `${face(ends[0])}-${face(ends[ends.length - 1])}`;
  }
  return t("meldOf", { rank: rankOf(naturals[0]) });
}

// The meld an id names in the position shown (a move's button names it by its cards).
function meldById(id) {
  for (const side of (state.shown || state.snapshot).sides) {
    const found = (side.melds || []).find((m) => m.id === id);
    if (found) return found;
  }
  return null;
}
const meldLabel = (id) => { const m = meldById(id); return m ? meldName(m) : id; };

// -- numbers --------------------------------------------------------------------------------

// Points as the language writes them ("1,920", "1.920", "1 920").
const points = (n) => new Intl.NumberFormat(state.lang).format(n ?? 0);
