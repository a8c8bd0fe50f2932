// Play from your seat (docs/api.md#playground): the page shows one seat's view, that seat's
// hand as cards to tap, and the moves the selected cards allow as a few large buttons; the
// other seats are computer players. Loaded before playground.js, whose helpers it uses once
// the page has started (state, t, el, call, card, apply, render, botsPlay, ...).
"use strict";

// selected: indexes into hand (the sorted hand shown, where two decks' twins differ by
// place only). token: the newest selection's check, so an older answer is dropped.
const play = { hand: [], selected: [], token: 0 };

// #play's data-ready is "0" while the page redraws or asks the service about a selection,
// "1" once what it shows is current (what a test waits for).
async function settled(fn) {
  $("play").dataset.ready = "0";
  try { await fn(); } finally { $("play").dataset.ready = "1"; }
}

// The seat the person plays, or null (no seat: the page explores every seat).
const mySeat = () => ($("me").value === "" ? null : Number($("me").value));

const selectedCards = () => play.selected.map((i) => play.hand[i]);
const sameCards = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

// The cards of the mover's hand an action uses.
function handCardsOf(a) {
  const melds = a.meld || a.takePile || {};
  const cards = [...((a.takePile || {}).handCards || []),
    ...(melds.newMelds || []).flatMap((m) => m.cards), ...(melds.additions || []).flatMap((m) => m.cards)];
  if (a.discard) cards.push(a.discard.card);
  if (a.swapWild) cards.push(a.swapWild.natural);
  return cards;
}

// A move's kind (the button's data-move) and its label in the player's language.
function moveKind(a) {
  if (handCardsOf(a).length && handCardsOf(a).length === play.hand.length) return "goOut";
  const melds = a.meld || {};
  if (a.meld) return (melds.newMelds || []).length ? "meld" : "add";
  return ["drawStock", "takePile", "takeTopCard", "swapWild", "discard", "askGoOut"].find((k) => a[k])
    || (a.answerGoOut && a.answerGoOut.allow ? "yes" : "no");
}

function moveLabel(a) {
  const kind = moveKind(a);
  const added = ((a.meld || {}).additions || [])[0] || {};
  const meld = added.meldId || (a.takePile || a.takeTopCard || a.swapWild || {}).meldId;
  const keys = { goOut: "moveGoOut", meld: "moveMeld", add: "moveAdd", drawStock: "moveDraw",
    takePile: meld ? "moveTakePileOnto" : "moveTakePile", takeTopCard: "moveTakeTop",
    swapWild: "moveSwap", discard: "moveDiscard", askGoOut: "moveAsk", yes: "moveYes", no: "moveNo" };
  return t(keys[kind], { meld });
}

function moveButton(a) {
  const button = el("button", { type: "button", class: "move", "data-move": moveKind(a) }, moveLabel(a));
  button.addEventListener("click", () => guarded(() => playMove(a)));
  return button;
}

async function playMove(action) {
  play.selected = [];
  await apply(action);
}

// What the selection would most plainly be, to ask the service why it is not a move: the
// pile taken with them while drawing, else one card discarded, else a new meld.
function plainAction(cards) {
  const seat = mySeat();
  if (state.snapshot.turn.phase === "DRAW") return { seat, takePile: { handCards: cards } };
  return cards.length === 1 ? { seat, discard: { card: cards[0] } } : { seat, meld: { newMelds: [{ cards }] } };
}

// The moves the selection allows, as buttons; none, and the service says why (ValidateAction,
// in its own words). A selection the (long, cut) list lacks is asked about too.
async function offer(fits, action) {
  const token = ++play.token;
  const why = $("why");
  why.replaceChildren();
  if (fits.length || !action) { $("moves").replaceChildren(...fits.map(moveButton)); return; }
  $("moves").replaceChildren();
  const verdict = await call("/v1/actions:validate", { snapshot: state.snapshot, action });
  if (token !== play.token) return;
  if (verdict.legal) { $("moves").replaceChildren(moveButton(action)); return; }
  $("moves").replaceChildren();
  why.replaceChildren(el("p", {}, t("noMove")), el("ul", {}, (verdict.violations || []).map(
    (v) => el("li", { class: "violation", "data-code": v.code }, v.message))));
}

const myTurn = () => !state.snapshot.result && awaitedSeat(state.snapshot) === mySeat();

async function renderMoves() {
  const sel = selectedCards();
  if (!myTurn()) {
    play.token++;
    $("why").replaceChildren();
    const seat = awaitedSeat(state.snapshot);
    const who = state.bots[seat] && state.bots[seat] !== "human" ? "computer" : "human";
    $("moves").replaceChildren(state.snapshot.result ? "" : el("p", { class: "waiting" }, t("waitingFor." + who, { seat })));
    return;
  }
  const fits = state.legal.actions.filter((a) => sameCards(handCardsOf(a), sel));
  await offer(fits, sel.length ? plainAction(sel) : null);
  if (!sel.length && !fits.length) $("moves").replaceChildren(el("p", { class: "muted" }, t("tapCards")));
}

function renderMyHand() {
  const seat = state.shown.seats[mySeat()];
  play.hand = sortedHand(seat.hand || []);
  play.selected = state.snapshot.result ? [] : play.selected.filter((i) => i < play.hand.length);
  $("my-title").textContent = t("yourHand", { seat: mySeat() });
  $("my-hand").replaceChildren(...play.hand.map((code, i) => {
    const pressed = play.selected.includes(i);
    const face = card(code);
    // named by its words ("six of diamonds"); the face (6♦) is for the eyes
    for (const part of face.children) part.setAttribute("aria-hidden", "true");
    const button = el("button", { type: "button", class: face.className + (pressed ? " selected" : ""),
      "data-card": code, "aria-pressed": String(pressed) }, el("span", { class: "sr-only" }, cardName(code)),
    [...face.childNodes]);
    button.addEventListener("click", () => guarded(() => toggle(i)));
    return button;
  }));
  $("clear").hidden = !play.selected.length;
}

async function toggle(i) {
  if (state.snapshot.result) return;
  play.selected = play.selected.includes(i) ? play.selected.filter((j) => j !== i) : [...play.selected, i];
  const button = $("my-hand").children[i];
  button.classList.toggle("selected", play.selected.includes(i));
  button.setAttribute("aria-pressed", String(play.selected.includes(i)));
  $("clear").hidden = !play.selected.length;
  await settled(renderMoves);
}

// The deal's end: the result, the service's itemised score, and the next deal of the match
// (or the match's end).
function renderOutcome() {
  const box = $("outcome");
  const s = state.snapshot;
  box.hidden = !s.result || !state.score;
  if (box.hidden) { box.replaceChildren(); return; }
  const score = $("score").cloneNode(true);
  score.removeAttribute("id");
  const match = state.score.matchOver ? (state.score.draw ? t("matchDrawn")
    : t("matchOver", { side: state.score.winnerSide ?? 0 })) : "";
  const next = el("button", { type: "button", class: "move primary", "data-move": match ? "newMatch" : "nextDeal" },
    t(match ? "newMatch" : "nextDeal"));
  next.addEventListener("click", () => guarded(match ? deal : nextDeal));
  box.replaceChildren(el("p", {}, ...turnLine(s), " · ", t("dealNumber", { number: s.dealNumber || 1 })),
    el("div", { class: "scroll-x" }, score), match ? el("p", { class: "match-over" }, el("b", {}, match)) : "", next);
}

async function renderPlay() {
  const me = mySeat();
  document.body.classList.toggle("playing", me !== null);
  $("play").hidden = me === null;
  if (me === null) return;
  renderMyHand();
  renderOutcome();
  await renderMoves();
}

// A meld of the player's side, tapped: the selection added to it (or the pile taken onto it).
async function meldTapped(meldId) {
  if (myTurn()) await settled(() => addToMeld(meldId));
}

async function addToMeld(meldId) {
  const sel = selectedCards();
  const onto = (a) => ((a.meld || {}).additions || []).some((x) => x.meldId === meldId)
    || (a.takePile || a.takeTopCard || {}).meldId === meldId;
  const fits = state.legal.actions.filter((a) => onto(a) && sameCards(handCardsOf(a), sel));
  if (fits.length) { await playMove(fits[0]); return; }
  if (sel.length) await offer([], { seat: mySeat(), meld: { additions: [{ meldId, cards: sel }] } });
}

// A meld on the table, made a target to tap while the player's side owns it.
function meldTarget(node, meldId, side) {
  const me = mySeat();
  if (me === null || !state.snapshot || state.snapshot.seats[me].side !== side) return node;
  node.classList.add("target");
  node.setAttribute("role", "button");
  node.setAttribute("tabindex", "0");
  node.setAttribute("aria-label", t("addToMeld", { meld: meldId }));
  node.addEventListener("click", () => guarded(() => meldTapped(meldId)));
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); guarded(() => meldTapped(meldId)); }
  });
  return node;
}

// The next deal of the match: the service derives scores, dealer and number from the last.
async function nextDeal() {
  const previous = state.snapshot;
  const number = (previous.dealNumber || 1) + 1;
  const seed = `${$("seed").value}/${number}`;
  const answer = await call("/v1/deals:deal", { previous, seed });
  await newPosition(answer.snapshot, { kind: "deal", dealt: { profile: $("profile").value,
    players: previous.seats.length, seed } });
  await botsPlay();
}

// A seat chosen: its view, and every other seat a computer player (BASIC unless chosen).
async function chooseSeat() {
  const me = mySeat();
  play.selected = [];
  $("viewer").disabled = me !== null;
  if (me !== null) {
    $("viewer").value = String(me);
    for (const select of document.querySelectorAll("#bots select")) {
      const seat = Number(select.dataset.seat);
      if (seat === me) select.value = "human";
      else if (select.value === "human") select.value = "BASIC";
      state.bots[seat] = select.value;
    }
  }
  await render();
  await botsPlay();
}

function setSeatOptions() {
  const before = $("me").value;
  const seats = state.snapshot.seats.length;
  $("me").replaceChildren(el("option", { value: "" }, t("nobody")),
    ...Array.from({ length: seats }, (_, i) => el("option", { value: String(i) }, t("seatN", { seat: i }))));
  $("me").value = before !== "" && Number(before) < seats ? before : "";
}
