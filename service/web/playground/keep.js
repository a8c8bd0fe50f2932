// The game kept across a reload (the browser's localStorage: the position, your seat, the
// computer players, the settings), and a fresh seed for every new game unless you typed
// one (Settings, Seed: the same seed deals the same cards, to reproduce a deal). Uses the
// helpers of playground.js once the page has started.
"use strict";

const KEPT = "samba-playground";

// A seed no one typed: a new one for each new game, so no two visits deal the same hand.
const freshSeed = () => "p-" + Math.random().toString(36).slice(2, 10);

// The seed of the next deal: the one typed since the last deal, else a fresh one (shown
// in Settings, so the deal can be dealt again).
function seedForDeal() {
  if (!state.seedTyped || !$("seed").value.trim()) $("seed").value = freshSeed();
  state.seedTyped = false;
  return $("seed").value.trim();
}

// Everything a reload needs to go on where the player was.
function keepGame() {
  if (!state.snapshot) return;
  const kept = {
    snapshot: state.snapshot, me: $("me").value, bots: state.bots, seed: $("seed").value,
    profile: $("profile").value, players: $("players").value, dev: $("dev").checked, lang: state.lang,
    sort: $("sort").value,
  };
  try { localStorage.setItem(KEPT, JSON.stringify(kept)); } catch { /* storage full or off: not kept */ }
}

function keptGame() {
  try { return JSON.parse(localStorage.getItem(KEPT) || "null"); } catch { return null; }
}

// The game before the reload, if the service still takes its position; false otherwise
// (nothing kept, or a position an older service wrote): the page then deals a new one.
async function resumeGame() {
  const kept = keptGame();
  if (!kept || !kept.snapshot) return false;
  try { await call("/v1/deals:view", { snapshot: kept.snapshot }); } catch { return false; }
  if (kept.lang && kept.lang !== state.lang) { $("language").value = kept.lang; state.lang = kept.lang; await loadTexts(); }
  if ([...$("profile").options].some((o) => o.value === kept.profile)) $("profile").value = kept.profile;
  setPlayerOptions();
  $("players").value = kept.players;
  $("seed").value = kept.seed || "";
  $("sort").value = kept.sort || "rank";
  setDev(!!kept.dev);
  state.bots = kept.bots || {};
  state.resumeSeat = kept.me ?? "";
  await newPosition(kept.snapshot, { kind: "resumed" });
  return true;
}
