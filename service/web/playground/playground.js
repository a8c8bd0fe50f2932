// The playground: plain fetch against the gateway's REST routes (docs/api.md), same origin.
"use strict";

// texts: the event texts and score labels of the chosen language (/playground/texts.json)
const state = { snapshot: null, rulesets: [], lang: "en", texts: null, bots: {}, botsPlaying: false };
const LEVELS = ["human", "RANDOM", "BASIC", "STRONG"];
const $ = (id) => document.getElementById(id);

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
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function card(code) {
  const suit = code.slice(-1);
  const wild = code === "JK" || code.startsWith("2");
  const cls = ["card", wild ? "wild" : "", suit === "H" || suit === "D" ? "red" : ""].join(" ");
  return el("span", { class: cls }, code);
}

const cards = (list) => el("span", { class: "cards" }, list.map(card));
const hidden = (n) => el("span", { class: "cards" },
  Array.from({ length: n }, () => el("span", { class: "card back" }, "··")));

function describeAction(a) {
  const parts = [`seat ${a.seat}`];
  if (a.drawStock) parts.push("draw from the stock");
  if (a.takePile) {
    parts.push(a.takePile.meldId ? `take the pile onto ${a.takePile.meldId}`
      : `take the pile with ${a.takePile.handCards.join(" ")}`);
  }
  if (a.takeTopCard) parts.push(`take the top card onto ${a.takeTopCard.meldId}`);
  const meld = a.meld || a.takePile || {};
  for (const m of meld.newMelds || []) parts.push(`meld ${m.cards.join(" ")}`);
  for (const m of meld.additions || []) parts.push(`add ${m.cards.join(" ")} to ${m.meldId}`);
  if (a.swapWild) parts.push(`swap ${a.swapWild.natural} for ${a.swapWild.wild} in ${a.swapWild.meldId}`);
  if (a.discard) parts.push(`discard ${a.discard.card}`);
  if (a.askGoOut) parts.push("ask \"may I go out?\"");
  if (a.answerGoOut) parts.push(a.answerGoOut.allow ? "answer yes" : "answer no");
  return parts.join(": ");
}

async function shownSnapshot() {
  const viewer = $("viewer").value;
  if (viewer === "full") return state.snapshot;
  const request = { snapshot: state.snapshot };
  if (viewer !== "spectator") request.seat = Number(viewer);
  return (await call("/v1/deals:view", request)).snapshot;
}

function renderTable(s) {
  const t = s.turn;
  $("turn").replaceChildren(el("b", {}, "Turn: "),
    s.result ? `deal over (${s.result.reason}${s.result.seat !== undefined ? ", seat " + s.result.seat : ""})`
      : `seat ${t.seat}, ${t.phase}` + (t.goOut !== "NOT_ASKED" ? `, go out: ${t.goOut}` : "")
        + ` · waiting for seat ${t.awaitingSeats.join(" or ")}`
        + ` · ply ${s.ply} · stock ${s.stockCount}`);
  const p = s.pile;
  $("pile").replaceChildren(el("b", {}, "Pile: "),
    p.count ? card(p.top) : "empty", ` ${p.count} card${p.count === 1 ? "" : "s"}`,
    p.blocked ? el("span", { class: "badge blocked" }, "blocked") : "",
    p.frozenForSides.length ? el("span", { class: "badge frozen" },
      `frozen for side${p.frozenForSides.length > 1 ? "s" : ""} ${p.frozenForSides.join(", ")}`)
      : el("span", { class: "badge" }, "not frozen"));
  $("seats").replaceChildren(...s.seats.map((seat) => el("div", {
    // highlighted: the seats the deal waits for (a partner while "may I go out?" is open)
    class: "seat" + (t.awaitingSeats.includes(seat.seat) ? " to-move" : ""), "data-seat": seat.seat,
  }, el("b", {}, `Seat ${seat.seat}`), ` (side ${seat.side}) · ${seat.handCount} cards`,
    seat.handHidden ? hidden(seat.handCount) : cards(seat.hand))));
  $("sides").replaceChildren(...s.sides.map((side) => el("div", { class: "side", "data-side": side.side },
    el("b", {}, `Side ${side.side}`), ` seats ${side.seats.join(", ")} · match ${side.matchScore}`,
    side.opened ? " · opened" : ` · initial meld ${side.initialMeldRequirement}`,
    side.redThrees.length ? el("div", {}, "Red 3s: ", cards(side.redThrees)) : "",
    side.penalties.length ? el("div", {}, "Penalties: " + side.penalties.map((x) => `${x.code} ${x.points}`).join(", ")) : "",
    ...side.melds.map((m) => el("div", { class: "meld", "data-meld": m.id }, `${m.id} `, cards(m.cards),
      el("span", { class: "badge" }, m.kind),
      el("span", { class: "badge " + m.status }, m.status),
      m.natural ? el("span", { class: "badge" }, "natural") : "")))));
}

async function renderActions(shown) {
  const list = $("actions");
  list.replaceChildren();
  if (shown.result) { $("action-count").textContent = "(deal over)"; return; }
  const answer = await call("/v1/actions:list", { snapshot: shown, pageSize: 1000 });
  $("action-count").textContent = `(${answer.totalSize}${answer.complete ? "" : ", incomplete"})`;
  for (const action of answer.actions) {
    const button = el("button", { type: "button" }, describeAction(action));
    button.addEventListener("click", () => guarded(() => apply(action)));
    list.append(el("li", {}, button));
  }
}

async function renderScore() {
  const over = !!state.snapshot.result;
  if ($("viewer").value !== "full") {
    $("score-kind").textContent = "(hidden while viewing as one seat: it counts the other hands)";
    $("score").replaceChildren();
    return;
  }
  if (state.snapshot.seats.some((seat) => seat.handHidden || (!seat.hand.length && seat.handCount))) {
    $("score-kind").textContent = "(a player's view: hands hidden, no score)";
    $("score").replaceChildren();
    return;
  }
  const answer = await call("/v1/deals:score", { snapshot: state.snapshot, provisional: !over });
  $("score-kind").textContent = over ? "(final)" : "(provisional: as if the stock ran out now)";
  const rows = ["meldPoints", "canastaBonus", "sambaBonus", "boliviaBonus", "redThreePoints",
    "goingOutBonus", "concealedBonus", "handPenalty", "penaltyPoints", "dealTotal", "matchTotal"];
  $("score").replaceChildren(
    el("tr", {}, el("th", {}, "term"), answer.sides.map((x) => el("th", {}, `side ${x.side}`))),
    ...rows.map((r) => el("tr", { "data-term": r }, el("th", {}, state.texts.scoreLabels[r] || r),
      answer.sides.map((x) => el("td", {}, x[r])))));
}

// "docs/rules.md#turn" -> the gateway's rendering of that page: /reference/rules.md#turn
const ruleLink = (rule) => rule.replace(/^docs\//, "/reference/");

// A typed action may lack fields describeAction expects: then it is shown as typed.
function judged(action) {
  try { return describeAction(action); } catch { return JSON.stringify(action); }
}

// The verdict names the action it judged and how (validated, or applied from the list).
function renderViolations(answer, how, action) {
  const box = $("verdict");
  box.replaceChildren(el("span", { class: answer.legal ? "legal" : "illegal" },
    answer.legal ? "legal" : "illegal"), el("span", { class: "judged" }, ` · ${how}: ${judged(action)}`));
  const list = el("ul");
  for (const v of answer.violations || []) {
    list.append(el("li", { class: "violation" }, el("code", {}, v.code), ` ${v.message} `,
      el("a", { href: ruleLink(v.rule), target: "_blank", title: "the rule in the rules reference" }, v.rule),
      v.penaltyPoints ? ` (penalty ${v.penaltyPoints})` : ""));
  }
  box.append(list);
}

async function render() {
  if (!state.snapshot) return;
  const shown = await shownSnapshot();
  renderTable(shown);
  await renderActions(shown);
  await renderScore();
}

// An event in the chosen language: its type's text, {placeholders} filled from its fields.
function eventText(e) {
  const template = state.texts.events[e.type] || e.type;
  const fields = { seat: e.seat, side: e.side, meld: e.meldId, cards: e.cards.join(" "), points: e.points };
  return template.replace(/\{(\w+)\}/g, (all, name) => (fields[name] ?? all));
}

async function loadTexts() {
  state.texts = await call("/playground/texts.json");
  document.documentElement.lang = state.lang;
}

// The seat whose action is awaited: the seat to play, or the partner answering.
function awaitedSeat(s) {
  const waiting = s.turn.awaitingSeats || [];
  return waiting.length ? waiting[0] : s.turn.seat;
}

function setBotOptions() {
  const seats = state.snapshot.seats.length;
  const before = state.bots;
  state.bots = {};
  $("bots").replaceChildren(...Array.from({ length: seats }, (_, i) => {
    const select = el("select", { id: `bot-${i}`, "data-seat": i },
      ...LEVELS.map((v) => el("option", { value: v }, v === "human" ? "human" : v.toLowerCase())));
    select.value = before[i] || "human";
    state.bots[i] = select.value;
    select.addEventListener("change", () => { state.bots[i] = select.value; guarded(botsPlay); });
    return el("label", {}, ` seat ${i} `, select);
  }));
}

// Computer players move while the awaited seat is one of theirs (a bounded number of moves).
async function botsPlay() {
  if (state.botsPlaying) return;
  state.botsPlaying = true;
  try {
    for (let n = 0; n < 2000 && state.snapshot && !state.snapshot.result; n++) {
      const seat = awaitedSeat(state.snapshot);
      const level = state.bots[seat];
      if (!level || level === "human") break;
      const answer = await call("/v1/actions:suggest",
        { snapshot: state.snapshot, seat, level, seed: $("seed").value });
      await apply(answer.action, true);
      await new Promise((done) => setTimeout(done, 100));
    }
  } finally { state.botsPlaying = false; }
}

// A hint for the seat in view (the awaited seat when viewing everything).
async function hint() {
  const box = $("hint-text");
  if (!state.snapshot || state.snapshot.result) { box.textContent = "the deal is over"; return; }
  const viewer = $("viewer").value;
  const seat = awaitedSeat(state.snapshot);
  if (viewer === "spectator" || (viewer !== "full" && Number(viewer) !== seat)) {
    box.textContent = `not this seat's turn: seat ${seat} is to act`;
    return;
  }
  const answer = await call("/v1/actions:suggest",
    { snapshot: await shownSnapshot(), seat, level: $("hint-level").value, seed: $("seed").value });
  box.replaceChildren(el("b", {}, describeAction(answer.action)), ` — ${answer.reason.message} `,
    el("code", {}, answer.reason.code));
}

async function apply(action, byBot = false) {
  $("verdict").replaceChildren();
  const answer = await call("/v1/actions:apply", { snapshot: state.snapshot, action });
  renderViolations(answer, "applied", action);
  state.snapshot = answer.snapshot;
  $("events").replaceChildren(...answer.events.map((e) => el("li", { "data-event": e.type },
    el("code", {}, e.type), " ", eventText(e))));
  $("hint-text").replaceChildren();
  await render();
  if (!byBot) await botsPlay();
}

function setViewerOptions() {
  const seats = state.snapshot.seats.length;
  const choices = [["full", "everything"], ["spectator", "a spectator"]];
  for (let i = 0; i < seats; i++) choices.push([String(i), `seat ${i}`]);
  const current = $("viewer").value;
  $("viewer").replaceChildren(...choices.map(([v, text]) => el("option", { value: v }, text)));
  $("viewer").value = choices.some(([v]) => v === current) ? current : "full";
}

function setPlayerOptions() {
  const rules = state.rulesets.find((r) => r.profile === $("profile").value);
  const allowed = rules.tableSizes.map((t) => t.players);
  $("players").replaceChildren(...allowed.map((n) => el("option", { value: n }, n)));
  $("players").value = allowed.includes(4) ? 4 : allowed[0];
}

async function deal() {
  const answer = await call("/v1/deals:deal", {
    ruleset: { profile: $("profile").value }, players: Number($("players").value), seed: $("seed").value,
  });
  state.snapshot = answer.snapshot;
  $("events").replaceChildren();
  $("verdict").replaceChildren();
  setViewerOptions();
  setBotOptions();
  await render();
  await botsPlay();
}

async function typedAction(path) {
  let action;
  try { action = JSON.parse($("action-json").value); } catch (e) { throw { error: { message: "the action is not JSON: " + e.message } }; }
  if (path === "apply") return apply(action);
  $("verdict").replaceChildren();
  renderViolations(await call("/v1/actions:validate", { snapshot: state.snapshot, action }), "validated", action);
}

async function inspect() {
  let pasted;
  try { pasted = JSON.parse($("snapshot-json").value); } catch (e) { throw { error: { message: "the snapshot is not JSON: " + e.message } }; }
  const snapshot = pasted.snapshot || pasted;
  await call("/v1/deals:view", { snapshot });  // the service checks it: a 400 lists every problem
  state.snapshot = snapshot;
  $("events").replaceChildren();
  $("verdict").replaceChildren();
  setViewerOptions();
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
  $("validate").addEventListener("click", () => guarded(() => typedAction("validate")));
  $("apply-typed").addEventListener("click", () => guarded(() => typedAction("apply")));
  $("inspect").addEventListener("click", () => guarded(inspect));
  $("language").addEventListener("change", () => guarded(async () => {
    state.lang = $("language").value;
    await loadTexts();
    $("verdict").replaceChildren();
    await render();
  }));
  $("hint").addEventListener("click", () => guarded(hint));
  $("copy").addEventListener("click", () => { $("snapshot-json").value = JSON.stringify(state.snapshot, null, 1); });
  await deal();
}

guarded(start);
