// The playground: plain fetch against the gateway's REST routes (docs/api.md), same origin.
// The page's other scripts, loaded before this one: texts.js (labels), cards.js (how a card
// looks and is named), log.js (the event log), play.js (play from your seat by tapping).
"use strict";

// texts: the event texts, score labels and the page's own labels in the chosen language
// (/playground/texts.json). history: every move of the deal with its events as everyone,
// each seat and a spectator saw them (ApplyAction's views), for the event log.
const state = {
  snapshot: null, shown: null, rulesets: [], lang: "en", texts: null, bots: {}, botsPlaying: false,
  history: [], lastSeat: null, legal: { actions: [], complete: true }, score: null,
  dev: false, seedTyped: false, resumeSeat: "",
};
const LEVELS = ["human", "RANDOM", "BASIC", "STRONG"];
const COMPUTER_PAUSE_MS = 350;  // between two computer moves, so a person sees each one
const $ = (id) => document.getElementById(id);

// -- calls ----------------------------------------------------------------------------------

async function call(path, body) {
  // the service answers violations and errors in the Accept-Language language (docs/i18n.md)
  const headers = { "accept-language": state.lang };
  const init = body === undefined ? { headers } : {
    method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const answer = await response.json();
  if (!response.ok) throw answer;
  return answer;
}

function showError(err) {
  const box = $("error");
  if (!err) { box.hidden = true; box.textContent = ""; return; }
  const e = err.error || { message: String(err) };
  const lines = [`${e.status || "ERROR"}: ${e.message}`];
  for (const d of e.details || []) {
    for (const v of d.fieldViolations || []) lines.push(`  ${v.field}: ${v.reason}: ${v.description}`);
  }
  box.textContent = lines.join("\n");
  box.hidden = false;
}

async function guarded(fn) {
  // a verdict is about one call: an error leaves none standing
  try { showError(null); await fn(); } catch (err) { $("verdict").replaceChildren(); showError(err); }
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children.flat()) {
    if (child === "" || child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// -- the table ------------------------------------------------------------------------------

// The turn as a player reads it: whose turn by name, the stock; the move number and the
// seats awaited only among the developer tools.
const resultWhy = (s) => (s.result.reason === "WENT_OUT" ? t("wentOut", { name: seatName(s.result.seat ?? 0) })
  : t("result." + s.result.reason));

function playerTurnLine(s) {
  const tn = s.turn;
  if (s.result) return [el("b", {}, t("dealOver")), ` (${resultWhy(s)})`];
  const seat = awaitedSeat(s);
  const parts = [el("b", {}, seat === mySeat() ? t("turnMine." + tn.phase)
    : t("turnOf." + tn.phase, { name: seatName(seat) }))];
  if (tn.goOut && tn.goOut !== "NOT_ASKED") parts.push(" · " + t("goOut." + tn.goOut));
  parts.push(" · " + t("stock", { count: s.stockCount ?? 0 }));
  if (state.dev) parts.push(" · " + t("ply", { ply: s.ply ?? 0 }));
  return parts;
}

function turnLine(s) {
  const tn = s.turn;
  if (mySeat() !== null) return playerTurnLine(s);
  if (s.result) {
    const why = s.result.reason === "WENT_OUT" ? t("result.WENT_OUT", { seat: s.result.seat ?? 0 })
      : t("result." + s.result.reason);
    return [el("b", {}, t("dealOver")), ` (${why})`];
  }
  const parts = [el("b", {}, t("turn." + tn.phase, { seat: tn.seat ?? 0 }))];
  if (tn.goOut && tn.goOut !== "NOT_ASKED") parts.push(" · " + t("goOut." + tn.goOut));
  parts.push(" · " + t("waitingFor", { seats: (tn.awaitingSeats || []).join(", ") }),
    " · " + t("ply", { ply: s.ply ?? 0 }), " · " + t("stock", { count: s.stockCount ?? 0 }));
  return parts;
}

function renderPile(p) {
  const frozen = p.frozenForSides || [];
  const top = p.count ? card(p.top) : el("span", { class: "card empty" }, "");
  const by = discardedBy();
  if (p.count && by !== null) {  // the card another seat just threw, marked and named so
    top.classList.add("fresh");
    top.setAttribute("aria-label", t("discardedBy", { card: cardName(p.top), name: seatName(by) }));
  }
  $("pile").replaceChildren(el("div", { class: "pile-top" }, top),
  el("div", {}, el("b", {}, t("pile")), el("div", { class: "muted" },
    p.count ? t("pileCount", { count: p.count }) : t("empty")),
  el("div", {}, p.blocked ? el("span", { class: "badge blocked" }, t("blocked")) : "",
    frozen.length ? el("span", { class: "badge frozen" }, frozen.length === state.shown.sides.length
      && mySeat() !== null ? t("frozenAll") : t("frozenFor", { sides: frozen.map(sideName).join(", ") }))
      : el("span", { class: "badge" }, t("notFrozen")))));
}

function renderSeat(seat, awaiting) {
  const cls = "seat" + (awaiting.includes(seat.seat) ? " to-move" : "") + (mySeat() === seat.seat ? " mine" : "")
    + (state.lastSeat === seat.seat ? " moved" : "");
  const level = state.bots[seat.seat];
  const side = mySeat() === null ? ` · ${t("seatSide", { side: seat.side })}` : "";
  return el("div", { class: cls, "data-seat": seat.seat },
    el("div", { class: "seat-head" }, el("b", {}, seatName(seat.seat)),
      isPartner(seat.seat) && seat.side !== undefined && state.snapshot.seats.length !== 4
        ? el("span", { class: "badge" }, t("place.partner")) : "",
      el("span", { class: "muted" }, `${side} · ` + t("handCount", { count: seat.handCount ?? 0 })),
      level && level !== "human" ? el("span", { class: "badge computer" }, t("level." + level)) : ""),
    seat.handHidden || (!(seat.hand || []).length && seat.handCount)
      ? el("div", { class: "cards hand" }, backs(seat.handCount)) : hand(seat.hand || []));
}

function renderMeld(m) {
  return el("div", { class: "meld", "data-meld": m.id },
    el("div", { class: "cards fan" }, (m.cards || []).map((c) => card(c))),
    el("div", { class: "meld-tags" }, el("code", { class: "meld-id" }, meldName(m)),
      el("span", { class: "badge" }, t("kind." + m.kind)),
      el("span", { class: "badge " + m.status }, t("status." + m.status)),
      m.natural ? el("span", { class: "badge" }, t("natural")) : ""));
}

// A side: its seats, scores, red 3s and melds (yours, while you play, also by your hand).
function renderSide(side) {
  const me = mySeat();
  const mine = me !== null && state.snapshot.seats[me].side === side.side;
  const melds = side.melds || [];
  const seats = me === null ? ` · ${t("sideSeats", { seats: (side.seats || []).join(", ") })}` : "";
  return el("div", { class: "side" + (mine ? " mine" : ""), "data-side": side.side },
    el("div", { class: "side-head" }, el("b", {}, me === null ? t("sideTitle", { side: side.side }) : sideName(side.side)),
      el("span", { class: "muted" }, `${seats} · `
        + t("matchScore", { points: side.matchScore ?? 0 }) + " · "
        + (side.opened ? t("opened") : t("initialMeld", { points: side.initialMeldRequirement ?? 0 })))),
    (side.redThrees || []).length
      ? el("div", { class: "red-threes" }, t("redThrees") + " ", inlineCards(side.redThrees)) : "",
    (side.penalties || []).length ? el("div", {}, t("penalties") + ": "
      + side.penalties.map((x) => `${x.code} ${x.points}`).join(", ")) : "",
    el("div", { class: "melds" }, melds.length ? melds.map(renderMeld)
      : el("span", { class: "muted" }, t("noMelds"))));
}

function renderTable(s) {
  const tn = s.turn;
  const turn = $("turn");
  turn.dataset.seat = tn.seat ?? 0;
  turn.dataset.phase = s.result ? "OVER" : tn.phase;
  turn.dataset.ply = s.ply ?? 0;
  turn.dataset.goOut = tn.goOut || "";
  turn.dataset.awaiting = s.result ? "" : String(awaitedSeat(s));
  turn.replaceChildren(...turnLine(s));
  renderPile(s.pile);
  const awaiting = s.result ? [] : (tn.awaitingSeats || []);
  $("seats").replaceChildren(...s.seats.map((seat) => renderSeat(seat, awaiting)));
  $("sides").replaceChildren(...s.sides.map(renderSide));
}

async function shownSnapshot() {
  const viewer = $("viewer").value;
  if (viewer === "full") return state.snapshot;
  const request = { snapshot: state.snapshot };
  if (viewer !== "spectator") request.seat = Number(viewer);
  return (await call("/v1/deals:view", request)).snapshot;
}

// The score of the full position: withdrawn while a view hides hands, except at the deal's
// end, when the page scores the position it keeps (every hand is counted then).
async function renderScore() {
  const over = !!state.snapshot.result;
  const kind = (text) => { $("score-kind").textContent = `(${text})`; };
  state.score = null;
  if ($("viewer").value !== "full" && !over) {
    kind(t("scoreHidden"));
    $("score").replaceChildren();
    return;
  }
  if (state.snapshot.seats.some((seat) => seat.handHidden || (!(seat.hand || []).length && seat.handCount))) {
    kind(t("scoreNoHands"));
    $("score").replaceChildren();
    return;
  }
  const answer = await call("/v1/deals:score", { snapshot: state.snapshot, provisional: !over });
  kind(over ? t("scoreFinal") : t("scoreProvisional"));
  state.score = answer;
  const rows = ["meldPoints", "canastaBonus", "sambaBonus", "boliviaBonus", "redThreePoints",
    "goingOutBonus", "concealedBonus", "handPenalty", "penaltyPoints", "dealTotal", "matchTotal"];
  $("score").replaceChildren(
    el("tr", {}, el("th", {}, t("term")), answer.sides.map((x) => el("th", {}, sideName(x.side ?? 0)))),
    ...rows.map((r) => el("tr", { "data-term": r }, el("th", {}, state.texts.scoreLabels[r] || r),
      answer.sides.map((x) => el("td", {}, x[r] ?? 0)))));
}

async function render() {
  if (!state.snapshot) return;
  await settled(async () => {
    state.shown = await shownSnapshot();
    renderTable(state.shown);
    renderLog();
    renderRecent();
    await renderActions();
    await renderScore();
    await renderPlay();
  });
  keepGame();
}

// -- playing --------------------------------------------------------------------------------

// The seat whose action is awaited: the seat to play, or the partner answering.
function awaitedSeat(s) {
  const waiting = s.turn.awaitingSeats || [];
  return waiting.length ? waiting[0] : (s.turn.seat ?? 0);
}

// Who plays each seat: you at yours, and at every other seat a computer (basic unless another
// level was chosen), whatever the table's size; while exploring, whatever was chosen.
function setBotOptions() {
  const seats = state.snapshot.seats.length;
  const before = state.bots;
  const me = mySeat();
  const level = (i) => {
    if (i === me) return "human";
    if (me !== null && (!before[i] || before[i] === "human")) return "BASIC";
    return before[i] || "human";
  };
  state.bots = {};
  $("bots").replaceChildren(...Array.from({ length: seats }, (_, i) => {
    const select = el("select", { id: `bot-${i}`, "data-seat": i },
      ...LEVELS.map((v) => el("option", { value: v }, t("level." + v))));
    select.value = level(i);
    state.bots[i] = select.value;
    select.addEventListener("change", () => guarded(async () => {
      state.bots[i] = select.value;
      renderTable(state.shown);
      await botsPlay();
    }));
    return el("label", {}, seatName(i, false) + " ", select);
  }));
}

// Computer players move while the awaited seat is one of theirs: one ApplyAction each
// (`computer` in place of `action`), shown as it happens (a bounded number of moves).
async function botsPlay() {
  if (state.botsPlaying) return;
  state.botsPlaying = true;
  try {
    for (let n = 0; n < 2000 && state.snapshot && !state.snapshot.result; n++) {
      const seat = awaitedSeat(state.snapshot);
      const level = state.bots[seat];
      if (!level || level === "human") break;
      const answer = await call("/v1/actions:apply", {
        snapshot: state.snapshot, computer: { seat, level, seed: $("seed").value }, includeViews: true,
      });
      renderViolations(answer, "applied", answer.chosen.action);
      state.snapshot = answer.snapshot;
      record(answer, seat, level, answer.chosen.reason);
      $("hint-text").replaceChildren();
      await render();
      await new Promise((done) => setTimeout(done, COMPUTER_PAUSE_MS));
    }
  } finally { state.botsPlaying = false; }
}

async function apply(action) {
  $("verdict").replaceChildren();
  const answer = await call("/v1/actions:apply", { snapshot: state.snapshot, action, includeViews: true });
  renderViolations(answer, "applied", action);
  state.snapshot = answer.snapshot;
  if (answer.legal || (answer.events || []).length) record(answer, action.seat ?? 0, null, null);
  $("hint-text").replaceChildren();
  await render();
  await botsPlay();
}

function setViewerOptions() {
  const seats = state.snapshot.seats.length;
  const choices = [["full", t("everything")], ["spectator", t("spectator")]];
  for (let i = 0; i < seats; i++) choices.push([String(i), t("seatN", { seat: i })]);
  const current = $("viewer").value;
  $("viewer").replaceChildren(...choices.map(([v, text]) => el("option", { value: v }, text)));
  $("viewer").value = choices.some(([v]) => v === current) ? current : "full";
}

function setPlayerOptions() {
  const rules = state.rulesets.find((r) => r.profile === $("profile").value);
  const allowed = rules.tableSizes.map((x) => x.players);
  $("players").replaceChildren(...allowed.map((n) => el("option", { value: n }, n)));
  $("players").value = allowed.includes(4) ? 4 : allowed[0];
}

// A new position: its log starts with how it came.
async function newPosition(snapshot, first) {
  state.snapshot = snapshot;
  state.history = [first];
  state.lastSeat = null;
  $("verdict").replaceChildren();
  $("hint-text").replaceChildren();
  setViewerOptions();
  setSeatOptions();
  setBotOptions();
  $("viewer").disabled = mySeat() !== null;
  await render();
  if (mySeat() !== null) scrollTo(0, 0);  // a new deal: its first turn in view, not the last result
}

async function deal() {
  const dealt = { profile: $("profile").value, players: Number($("players").value), seed: seedForDeal() };
  const answer = await call("/v1/deals:deal", {
    ruleset: { profile: dealt.profile }, players: dealt.players, seed: dealt.seed,
  });
  await newPosition(answer.snapshot, { kind: "deal", dealt });
  await botsPlay();
}

// A new language: every label, the table, the log and the lists said again.
async function changeLanguage() {
  state.lang = $("language").value;
  await loadTexts();
  $("verdict").replaceChildren();
  $("hint-text").replaceChildren();
  setProfileOptions();
  if (!state.snapshot) return;
  setViewerOptions();
  setSeatOptions();
  setBotOptions();
  await render();
}

async function start() {
  await loadTexts();
  state.rulesets = (await call("/v1/rulesets")).rulesets;
  setProfileOptions();
  setPlayerOptions();
  $("profile").addEventListener("change", () => { setPlayerOptions(); setProfileAbout(); });
  $("seed").addEventListener("input", () => { state.seedTyped = true; });
  $("dev").addEventListener("change", () => guarded(async () => { setDev($("dev").checked); await render(); }));
  $("deal").addEventListener("click", () => guarded(deal));
  $("viewer").addEventListener("change", () => guarded(render));
  $("sort").addEventListener("change", () => guarded(async () => {
    play.selected = [];
    if (state.shown) { renderTable(state.shown); await renderPlay(); }
  }));
  $("me").addEventListener("change", () => guarded(chooseSeat));
  $("clear").addEventListener("click", () => guarded(async () => { play.selected = []; await renderPlay(); }));
  // folded on a phone, open on a wide screen (the page as it was); the developer tools
  // shown on a wide screen, behind their switch on a phone
  const wide = matchMedia("(min-width: 901px)").matches;
  for (const fold of document.querySelectorAll("details.fold")) fold.open = wide;
  setDev(wide);
  $("validate").addEventListener("click", () => guarded(() => typedAction("validate")));
  $("apply-typed").addEventListener("click", () => guarded(() => typedAction("apply")));
  $("inspect").addEventListener("click", () => guarded(inspect));
  $("language").addEventListener("change", () => guarded(changeLanguage));
  $("hint").addEventListener("click", () => guarded(hint));
  $("copy").addEventListener("click", () => { $("snapshot-json").value = JSON.stringify(state.snapshot, null, 1); });
  if (await resumeGame()) { await botsPlay(); return; }
  await deal();
  // on a phone a person plays: from the seat to act first, against the computer
  if (!wide) { $("me").value = String(awaitedSeat(state.snapshot)); await chooseSeat(); }
}

// The developer tools (the API links, the panels, View as, the move number, meld ids) shown
// or not: one switch, in Settings.
function setDev(on) {
  state.dev = on;
  $("dev").checked = on;
  document.body.classList.toggle("dev", on);
}

// Each profile by its name, with a line saying what kind of game it is.
function setProfileOptions() {
  const current = $("profile").value;
  $("profile").replaceChildren(...state.rulesets.map((r) => el("option", { value: r.profile },
    t("profileName." + r.profile) === "profileName." + r.profile ? r.profile : t("profileName." + r.profile))));
  if (current) $("profile").value = current;
  setProfileAbout();
}

function setProfileAbout() {
  const key = "profileAbout." + $("profile").value;
  $("profile-about").textContent = t(key) === key ? "" : t(key);
}

guarded(start);
