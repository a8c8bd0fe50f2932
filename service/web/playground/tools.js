// The playground's developer tools (behind Settings, Developer tools; open on a wide
// screen): every legal action listed to click, a typed action validated or applied, a hint,
// a pasted snapshot inspected. Uses the helpers of playground.js once the page has started.
"use strict";

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

