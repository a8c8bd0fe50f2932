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

// -- actions --------------------------------------------------------------------------------

function describeAction(a) {
  const parts = [];
  if (a.drawStock) parts.push(ui("actDraw"));
  if (a.takePile) {
    parts.push(a.takePile.meldId ? ui("actTakePileOnto", { meld: a.takePile.meldId })
      : ui("actTakePileWith", { cards: inlineCards(a.takePile.handCards || []) }));
  }
  if (a.takeTopCard) parts.push(ui("actTakeTop", { meld: a.takeTopCard.meldId }));
  const meld = a.meld || a.takePile || {};
  for (const m of meld.newMelds || []) parts.push(ui("actMeld", { cards: inlineCards(m.cards) }));
  for (const m of meld.additions || []) {
    parts.push(ui("actAdd", { cards: inlineCards(m.cards), meld: m.meldId }));
  }
  if (a.swapWild) {
    const s = a.swapWild;
    parts.push(ui("actSwap", { natural: card(s.natural, true), wild: card(s.wild, true), meld: s.meldId }));
  }
  if (a.discard) parts.push(ui("actDiscard", { cards: card(a.discard.card, true) }));
  if (a.askGoOut) parts.push(ui("actAsk"));
  if (a.answerGoOut) parts.push(ui(a.answerGoOut.allow ? "actYes" : "actNo"));
  const out = [t("seatN", { seat: a.seat ?? 0 })];
  for (const part of parts) out.push(": ", ...part);
  return out;
}

// -- the table ------------------------------------------------------------------------------

function turnLine(s) {
  const tn = s.turn;
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
  $("pile").replaceChildren(el("div", { class: "pile-top" },
    p.count ? card(p.top) : el("span", { class: "card empty" }, "")),
  el("div", {}, el("b", {}, t("pile")), el("div", { class: "muted" },
    p.count ? t("pileCount", { count: p.count }) : t("empty")),
  el("div", {}, p.blocked ? el("span", { class: "badge blocked" }, t("blocked")) : "",
    frozen.length ? el("span", { class: "badge frozen" },
      t("frozenFor", { sides: frozen.map((x) => t("seatSide", { side: x })).join(", ") }))
      : el("span", { class: "badge" }, t("notFrozen")))));
}

function renderSeat(seat, awaiting) {
  const cls = "seat" + (awaiting.includes(seat.seat) ? " to-move" : "") + (mySeat() === seat.seat ? " mine" : "")
    + (state.lastSeat === seat.seat ? " moved" : "");
  const level = state.bots[seat.seat];
  return el("div", { class: cls, "data-seat": seat.seat },
    el("div", { class: "seat-head" }, el("b", {}, t("seatTitle", { seat: seat.seat })),
      el("span", { class: "muted" }, ` · ${t("seatSide", { side: seat.side })} · `
        + t("handCount", { count: seat.handCount ?? 0 })),
      level && level !== "human" ? el("span", { class: "badge computer" }, t("level." + level)) : ""),
    seat.handHidden || (!(seat.hand || []).length && seat.handCount)
      ? el("div", { class: "cards hand" }, backs(seat.handCount)) : hand(seat.hand || []));
}

function renderMeld(m, side) {
  return meldTarget(el("div", { class: "meld", "data-meld": m.id },
    el("div", { class: "cards fan" }, (m.cards || []).map((c) => card(c))),
    el("div", { class: "meld-tags" }, el("code", {}, m.id),
      el("span", { class: "badge" }, t("kind." + m.kind)),
      el("span", { class: "badge " + m.status }, t("status." + m.status)),
      m.natural ? el("span", { class: "badge" }, t("natural")) : "")), m.id, side);
}

function renderSide(side) {
  const melds = side.melds || [];
  return el("div", { class: "side", "data-side": side.side },
    el("div", { class: "side-head" }, el("b", {}, t("sideTitle", { side: side.side })),
      el("span", { class: "muted" }, ` · ${t("sideSeats", { seats: (side.seats || []).join(", ") })} · `
        + t("matchScore", { points: side.matchScore ?? 0 }) + " · "
        + (side.opened ? t("opened") : t("initialMeld", { points: side.initialMeldRequirement ?? 0 })))),
    (side.redThrees || []).length
      ? el("div", { class: "red-threes" }, t("redThrees") + " ", inlineCards(side.redThrees)) : "",
    (side.penalties || []).length ? el("div", {}, t("penalties") + ": "
      + side.penalties.map((x) => `${x.code} ${x.points}`).join(", ")) : "",
    el("div", { class: "melds" }, melds.length ? melds.map((m) => renderMeld(m, side.side))
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

// The actions are listed on the full position the page keeps, never on the view shown (a
// view hides the other hands: the service cannot list a hidden seat's moves). Viewing as one
// seat or a spectator, only the viewing seat's own actions are listed, so the list shows no
// card the view hides.
async function renderActions() {
  const list = $("actions");
  const s = state.snapshot;
  list.replaceChildren();
  state.legal = { actions: [], complete: true };
  if (s.result) { $("action-count").textContent = `(${t("dealOver")})`; return; }
  const viewer = $("viewer").value;
  if (viewer !== "full" && viewer !== String(awaitedSeat(s))) {
    $("action-count").textContent = `(${t("notThisSeat", { seat: awaitedSeat(s) })})`;
    return;
  }
  const answer = await call("/v1/actions:list", { snapshot: s, pageSize: 1000 });
  state.legal = { actions: answer.actions || [], complete: !!answer.complete };
  $("action-count").textContent = `(${answer.totalSize ?? 0}${answer.complete ? "" : ", " + t("incomplete")})`;
  for (const action of answer.actions || []) {
    const button = el("button", { type: "button" }, describeAction(action));
    button.addEventListener("click", () => guarded(() => apply(action)));
    list.append(el("li", {}, button));
  }
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
    el("tr", {}, el("th", {}, t("term")), answer.sides.map((x) => el("th", {}, t("seatSide", { side: x.side ?? 0 })))),
    ...rows.map((r) => el("tr", { "data-term": r }, el("th", {}, state.texts.scoreLabels[r] || r),
      answer.sides.map((x) => el("td", {}, x[r] ?? 0)))));
}

async function render() {
  if (!state.snapshot) return;
  await settled(async () => {
    state.shown = await shownSnapshot();
    renderTable(state.shown);
    renderLog();
    await renderActions();
    await renderScore();
    await renderPlay();
  });
}

// -- playing --------------------------------------------------------------------------------

const ruleLink = (rule) => rule.replace(/^docs\//, "/reference/");  // docs/rules.md#turn -> /reference/…

// A typed action may lack fields describeAction expects: then it is shown as typed.
function judged(action) {
  try { return describeAction(action); } catch { return JSON.stringify(action); }
}

// The verdict names the action it judged and how (validated, or applied from the list).
function renderViolations(answer, how, action) {
  const box = $("verdict");
  box.replaceChildren(el("span", { class: answer.legal ? "legal" : "illegal" },
    t(answer.legal ? "legal" : "illegal")), el("span", { class: "judged" }, ` · ${t(how)}: `, judged(action)));
  const list = el("ul");
  for (const v of answer.violations || []) {
    list.append(el("li", { class: "violation" }, el("code", {}, v.code), ` ${v.message} `,
      el("a", { href: ruleLink(v.rule), target: "_blank", title: t("ruleLinkTitle") }, v.rule),
      v.penaltyPoints ? ` (${t("penaltyOf", { points: v.penaltyPoints })})` : ""));
  }
  box.append(list);
}

// The seat whose action is awaited: the seat to play, or the partner answering.
function awaitedSeat(s) {
  const waiting = s.turn.awaitingSeats || [];
  return waiting.length ? waiting[0] : (s.turn.seat ?? 0);
}

function setBotOptions() {
  const seats = state.snapshot.seats.length;
  const before = state.bots;
  state.bots = {};
  $("bots").replaceChildren(...Array.from({ length: seats }, (_, i) => {
    const select = el("select", { id: `bot-${i}`, "data-seat": i },
      ...LEVELS.map((v) => el("option", { value: v }, t("level." + v))));
    select.value = before[i] || "human";
    state.bots[i] = select.value;
    select.addEventListener("change", () => guarded(async () => {
      state.bots[i] = select.value;
      renderTable(state.shown);
      await botsPlay();
    }));
    return el("label", {}, t("seatN", { seat: i }) + " ", select);
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

// A hint for the seat in view (the awaited seat when viewing everything).
async function hint() {
  const box = $("hint-text");
  if (!state.snapshot || state.snapshot.result) { box.textContent = t("dealOver"); return; }
  const viewer = $("viewer").value;
  const seat = awaitedSeat(state.snapshot);
  if (viewer === "spectator" || (viewer !== "full" && Number(viewer) !== seat)) {
    box.textContent = t("notThisSeat", { seat });
    return;
  }
  const answer = await call("/v1/actions:suggest",
    { snapshot: await shownSnapshot(), seat, level: $("hint-level").value, seed: $("seed").value });
  box.replaceChildren(el("b", {}, describeAction(answer.action)), ` — ${answer.reason.message} `,
    el("code", {}, answer.reason.code));
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
}

async function deal() {
  const dealt = { profile: $("profile").value, players: Number($("players").value), seed: $("seed").value };
  const answer = await call("/v1/deals:deal", {
    ruleset: { profile: dealt.profile }, players: dealt.players, seed: dealt.seed,
  });
  await newPosition(answer.snapshot, { kind: "deal", dealt });
  await botsPlay();
}

function parsed(id, key) {
  try { return JSON.parse($(id).value); } catch (e) { throw { error: { message: t(key, { error: e.message }) } }; }
}

async function typedAction(path) {
  const action = parsed("action-json", "notJsonAction");
  if (path === "apply") return apply(action);
  $("verdict").replaceChildren();
  renderViolations(await call("/v1/actions:validate", { snapshot: state.snapshot, action }), "validated", action);
}

async function inspect() {
  const pasted = parsed("snapshot-json", "notJsonSnapshot");
  const snapshot = pasted.snapshot || pasted;
  await call("/v1/deals:view", { snapshot });  // the service checks it: a 400 lists every problem
  await newPosition(snapshot, { kind: "inspect" });
}

// A new language: every label, the table, the log and the lists said again.
async function changeLanguage() {
  state.lang = $("language").value;
  await loadTexts();
  $("verdict").replaceChildren();
  $("hint-text").replaceChildren();
  if (!state.snapshot) return;
  setViewerOptions();
  setSeatOptions();
  setBotOptions();
  await render();
}

async function start() {
  await loadTexts();
  state.rulesets = (await call("/v1/rulesets")).rulesets;
  $("profile").replaceChildren(...state.rulesets.map((r) => el("option", { value: r.profile }, r.profile)));
  setPlayerOptions();
  $("profile").addEventListener("change", setPlayerOptions);
  $("deal").addEventListener("click", () => guarded(deal));
  $("viewer").addEventListener("change", () => guarded(render));
  $("sort").addEventListener("change", () => guarded(async () => {
    play.selected = [];
    if (state.shown) { renderTable(state.shown); await renderPlay(); }
  }));
  $("me").addEventListener("change", () => guarded(chooseSeat));
  $("clear").addEventListener("click", () => guarded(async () => { play.selected = []; await renderPlay(); }));
  // folded on a phone, open on a wide screen (the page as it was)
  const wide = matchMedia("(min-width: 901px)").matches;
  for (const fold of document.querySelectorAll("details.fold")) fold.open = wide;
  $("validate").addEventListener("click", () => guarded(() => typedAction("validate")));
  $("apply-typed").addEventListener("click", () => guarded(() => typedAction("apply")));
  $("inspect").addEventListener("click", () => guarded(inspect));
  $("language").addEventListener("change", () => guarded(changeLanguage));
  $("hint").addEventListener("click", () => guarded(hint));
  $("copy").addEventListener("click", () => { $("snapshot-json").value = JSON.stringify(state.snapshot, null, 1); });
  await deal();
  // on a phone a person plays: from the seat to act first, against the computer
  if (!wide) { $("me").value = String(awaitedSeat(state.snapshot)); await chooseSeat(); }
}

guarded(start);
