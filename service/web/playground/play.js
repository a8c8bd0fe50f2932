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
  const id = added.meldId || (a.takePile || a.takeTopCard || a.swapWild || {}).meldId;
  const meld = id ? meldLabel(id) : undefined;
  const keys = { goOut: "moveGoOut", meld: "moveMeld", add: "moveAdd", drawStock: "moveDraw",
    takePile: meld ? "moveTakePileOnto" : "moveTakePile", takeTopCard: "moveTakeTop",
    swapWild: "moveSwap", discard: "moveDiscard", askGoOut: "moveAsk", yes: "moveYes", no: "moveNo" };
  return t(keys[kind], { meld });
}

function moveButton(a) {
  const kind = moveKind(a);
  const button = el("button", { type: "button", class: "move" + (kind === "askGoOut" ? " quiet" : ""),
    "data-move": kind }, moveLabel(a));
  button.addEventListener("click", () => guarded(() => playMove(a)));
  return button;
}

async function playMove(action) {
  play.selected = [];
  await settled(() => apply(action));  // not ready from the tap until the move is drawn
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
  const violations = verdict.violations || [];
  why.replaceChildren(el("p", {}, t("noMove")), el("ul", {}, violations.map(
    (v) => el("li", { class: "violation", "data-code": v.code }, v.message))),
  el("p", { class: "fix" }, whatToDo(violations)));
}

// What to do about the first refusal: its own advice, else to choose again.
function whatToDo(violations) {
  const key = "fix." + ((violations[0] || {}).code || "other");
  return t(key) === key ? t("fix.other") : t(key);
}

const myTurn = () => !state.snapshot.result && awaitedSeat(state.snapshot) === mySeat();

// Whether your side could go out now: it holds the canastas (and sambas) the table asks for
// (docs/rules.md#going-out). Asking "may I go out?" is offered only then.
function canGoOut() {
  const s = state.snapshot;
  const rules = state.rulesets.find((r) => r.profile === s.ruleset.profile) || {};
  const table = (rules.tableSizes || []).find((x) => x.players === s.seats.length) || {};
  const melds = s.sides[s.seats[mySeat()].side].melds || [];
  const complete = melds.filter((m) => (m.cards || []).length >= 7);
  const sambas = complete.filter((m) => m.status === "SAMBA").length;
  return complete.length >= (table.goOutCanastas ?? 0) && sambas >= (rules.goOutSambas ?? 0);
}

async function renderMoves() {
  const sel = selectedCards();
  if (!myTurn()) {
    play.token++;
    $("why").replaceChildren();
    const seat = awaitedSeat(state.snapshot);
    const who = state.bots[seat] && state.bots[seat] !== "human" ? "computer" : "human";
    $("moves").replaceChildren(state.snapshot.result ? ""
      : el("p", { class: "waiting" }, t("waitingFor." + who, { seat: seatName(seat) })));
    return;
  }
  const fits = state.legal.actions.filter((a) => sameCards(handCardsOf(a), sel)
    && (!a.askGoOut || canGoOut()));
  await offer(fits, sel.length ? plainAction(sel) : null);
  // nothing selected while playing: the hint leads, asking to go out (where possible) after it
  if (!sel.length && !fits.some((a) => !a.askGoOut)) {
    $("moves").replaceChildren(el("p", { class: "muted" }, t("tapCards")), ...fits.map(moveButton));
  }
}

// Which cards of the hand to mark as new: the first of each code the turn's draw brought.
function freshIndexes() {
  const left = [...freshCards()];
  const marked = new Set();
  play.hand.forEach((code, i) => {
    const at = left.indexOf(code);
    if (at >= 0) { marked.add(i); left.splice(at, 1); }
  });
  return marked;
}

function renderMyHand() {
  const seat = state.shown.seats[mySeat()];
  play.hand = sortedHand(seat.hand || []);
  // a selection is for your turn: none stands before it or after it
  play.selected = myTurn() ? play.selected.filter((i) => i < play.hand.length) : [];
  const fresh = freshIndexes();
  $("my-title").textContent = t("yourHand", { count: play.hand.length });
  $("my-hand").classList.toggle("waiting", !myTurn());
  $("my-hand").replaceChildren(...play.hand.map((code, i) => {
    const pressed = play.selected.includes(i);
    const face = card(code);
    // named by its words ("six of diamonds", "new" if just drawn); the face (6♦) is for the eyes
    for (const part of face.children) part.setAttribute("aria-hidden", "true");
    const cls = face.className + (pressed ? " selected" : "") + (fresh.has(i) ? " fresh" : "");
    const button = el("button", { type: "button", class: cls, "data-card": code, "aria-pressed": String(pressed),
      "aria-disabled": String(!myTurn()) },
      el("span", { class: "sr-only" }, fresh.has(i) ? t("freshCard", { card: cardName(code) }) : cardName(code)),
      [...face.childNodes]);
    button.addEventListener("click", () => guarded(() => toggle(i)));
    return button;
  }));
  $("clear").hidden = !play.selected.length;
}

async function toggle(i) {
  if (!myTurn()) return;  // the computers are playing: a tap selects nothing
  play.selected = play.selected.includes(i) ? play.selected.filter((j) => j !== i) : [...play.selected, i];
  const button = $("my-hand").children[i];
  button.classList.toggle("selected", play.selected.includes(i));
  button.setAttribute("aria-pressed", String(play.selected.includes(i)));
  $("clear").hidden = !play.selected.length;
  await settled(renderMoves);
}

// The deal's end, brought into view: your side's points against theirs and who won, the next
// deal (or the match's end), then the service's itemised score (ScoreDeal), folded on a phone.
function renderOutcome() {
  const box = $("outcome");
  const s = state.snapshot;
  const shown = box.hidden;
  box.hidden = !s.result || !state.score;
  if (box.hidden) { box.replaceChildren(); return; }
  const score = $("score").cloneNode(true);
  score.removeAttribute("id");
  const match = matchLine(state.score);
  const next = el("button", { type: "button", class: "move primary", "data-move": match ? "newMatch" : "nextDeal" },
    t(match ? "newMatch" : "nextDeal"));
  next.addEventListener("click", () => guarded(match ? deal : nextDeal));
  const details = el("details", { class: "score-details" }, el("summary", {}, t("scoreDetails")),
    el("div", { class: "scroll-x" }, score));
  details.open = state.dev;
  box.replaceChildren(...resultLines(state.score, s), match ? el("p", { class: "match-over" }, el("b", {}, match)) : "",
    next, details);
  if (shown) box.scrollIntoView({ block: "start" });
}

// "Your side 440 - 1,920 them", who won the deal and why, the match so far.
function resultLines(score, s) {
  const mine = s.seats[mySeat()].side;
  const us = score.sides.find((x) => (x.side ?? 0) === mine) || {};
  const others = score.sides.filter((x) => (x.side ?? 0) !== mine);
  const best = (key) => Math.max(...others.map((x) => x[key] ?? 0));
  const top = others.reduce((a, b) => ((b.dealTotal ?? 0) > (a.dealTotal ?? 0) ? b : a), others[0] || {});
  const won = (us.dealTotal ?? 0) > best("dealTotal") ? t("dealWon")
    : (us.dealTotal ?? 0) === best("dealTotal") ? t("dealTied") : t("dealLost", { side: sideName(top.side ?? 0) });
  return [
    el("p", { class: "result-line", "data-testid": "result" }, el("b", {},
      t("resultLine", { us: points(us.dealTotal), them: points(best("dealTotal")) }))),
    el("p", {}, won, " (", resultWhy(s), ") · ", t("dealNumber", { number: s.dealNumber || 1 }),
      " · ", t("matchLine", { us: points(us.matchTotal), them: points(best("matchTotal")) })),
  ];
}

// The match's end, if this deal ended it: who won, said from your side.
function matchLine(score) {
  if (!score.matchOver) return "";
  if (score.draw) return t("matchDrawn");
  const side = score.winnerSide ?? 0;
  return side === state.snapshot.seats[mySeat()].side ? t("matchWon") : t("matchLost", { side: sideName(side) });
}

async function renderPlay() {
  const me = mySeat();
  document.body.classList.toggle("playing", me !== null);
  $("play").hidden = me === null;
  if (me === null) return;
  renderMyHand();
  renderMyMelds();
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

// Your side's melds as a strip by your hand: each a button named by its cards ("Add to 8s")
// with its size (and canasta or samba), tapped to add the selection to it (or take the pile
// onto it). Their cards are on the table, under Your side.
function renderMyMelds() {
  const s = state.shown;
  const melds = s.sides[s.seats[mySeat()].side].melds || [];
  $("my-melds").replaceChildren(...(melds.length ? melds.map(myMeld)
    : [el("span", { class: "muted" }, t("noMelds"))]));
}

function myMeld(m) {
  const name = meldName(m);
  const complete = m.status === "CANASTA" || m.status === "SAMBA";
  // the name said is the move ("Add to 8s"); the fan and the name shown are for the eyes
  const node = el("div", { class: "meld target" + (complete ? " " + m.status : ""), "data-meld": m.id,
    "data-cards": (m.cards || []).join(" "), role: "button", tabindex: "0" },
  el("span", { class: "sr-only" }, t("moveAdd", { meld: name }) + ", " + t("cardsInMeld", { count: (m.cards || []).length })),
  el("span", { class: "meld-name", "aria-hidden": "true" }, name),
  el("span", { class: "meld-count", "aria-hidden": "true" }, `×${(m.cards || []).length}`),
  complete ? el("span", { class: "badge " + m.status }, t("status." + m.status)) : "");
  node.addEventListener("click", () => guarded(() => meldTapped(m.id)));
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); guarded(() => meldTapped(m.id)); }
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
  if (me !== null) $("viewer").value = String(me);
  setBotOptions();  // yours human, the others computers, each named from your seat
  await render();
  await botsPlay();
}

function setSeatOptions() {
  const before = state.resumeSeat || $("me").value;
  state.resumeSeat = "";
  const seats = state.snapshot.seats.length;
  $("me").replaceChildren(el("option", { value: "" }, t("nobody")),
    ...Array.from({ length: seats }, (_, i) => el("option", { value: String(i) }, t("seatN", { seat: i }))));
  $("me").value = before !== "" && Number(before) < seats ? before : "";
}
