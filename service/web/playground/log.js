// The playground's event log: every move of the deal as the viewer chosen saw it. Uses the
// helpers of playground.js and cards.js once the page has started.
"use strict";

// -- the event log --------------------------------------------------------------------------

// An event in the chosen language: its type's text, {placeholders} filled from its fields;
// cards another seat drew and this viewer may not see are shown face down.
function eventText(e) {
  const template = state.texts.events[e.type] || e.type;
  const codes = e.cards || [];
  const shown = codes.length || !e.cardCount ? inlineCards(codes) : backs(e.cardCount, true);
  return fill(template, {
    seat: String(e.seat ?? 0), side: String(e.side ?? 0), meld: e.meldId || "", cards: shown,
    points: String(e.points ?? 0),
  });
}

// The events of one entry as the viewer chosen saw them.
function seenEvents(entry) {
  const viewer = $("viewer").value;
  if (viewer === "full") return entry.events;
  if (viewer === "spectator") return entry.spectator;
  return entry.views[Number(viewer)] || [];
}

function logEntry(entry) {
  if (entry.kind !== "move") {
    const what = entry.kind === "deal" ? t("logDealt", entry.dealt)
      : t(entry.kind === "resumed" ? "logResumed" : "logInspected");
    return el("li", { class: "log-deal", "data-kind": entry.kind }, what);
  }
  const who = entry.level ? t("logComputer", { level: t("level." + entry.level) }) : t("logHuman");
  const events = seenEvents(entry);
  const reason = entry.reason && $("viewer").value === "full"
    ? el("div", { class: "reason muted" }, `${entry.reason.message} (${entry.reason.code})`) : "";
  return el("li", { class: "log-move" + (entry.level ? " computer" : ""), "data-seat": entry.seat,
    "data-by": entry.level ? "computer" : "human" },
  el("div", { class: "log-head" }, el("b", {}, seatName(entry.seat)), ` · ${who}`),
  events.length ? el("ul", {}, events.map((e) => el("li", { "data-event": e.type }, eventText(e))))
    : el("div", { class: "muted" }, t("logNothing")), reason);
}

function renderLog() {
  const box = $("log");
  box.replaceChildren(...state.history.map(logEntry));
  box.scrollTop = box.scrollHeight;  // newest last, in sight
}

function record(answer, seat, level, reason) {
  const views = {};
  for (const v of answer.views || []) views[v.seat ?? 0] = v.events || [];
  state.history.push({
    kind: "move", seat, level, reason, events: answer.events || [], views,
    spectator: (answer.spectatorView || {}).events || [],
  });
  state.lastSeat = seat;
}
