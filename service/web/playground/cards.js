// The playground's cards: how a card looks, its name for a screen reader, a hand sorted.
// Loaded first; uses the helpers of playground.js (t, el, $) once the page has started.
"use strict";

// -- cards ----------------------------------------------------------------------------------

const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_ORDER = "SHCD";  // black, red, black, red: neighbours differ in colour
const RANK_ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"];

const suitOf = (code) => (code === "JK" ? "" : code.slice(-1));
const rankOf = (code) => (code === "JK" ? "JK" : code.slice(0, -1));
const isWild = (code) => code === "JK" || rankOf(code) === "2";
const rankIndex = (code) => (code === "JK" ? RANK_ORDER.length : RANK_ORDER.indexOf(rankOf(code)));

// A card as it looks: its rank and its suit's symbol, red or black; a joker a purple star.
function card(code, small = false) {
  const suit = suitOf(code);
  const colour = code === "JK" ? "joker" : (suit === "H" || suit === "D" ? "red" : "black");
  // "10", the one rank of two characters, is set narrower so a fan's next card leaves it whole
  const cls = ["card", colour, isWild(code) ? "wild" : "", small ? "mini" : "",
    rankOf(code) === "10" ? "ten" : ""].join(" ").replace(/ +/g, " ").trim();
  const face = code === "JK" ? [el("span", { class: "rank" }, "★")]
    : [el("span", { class: "rank" }, rankOf(code)), el("span", { class: "suit" }, SUIT_SYMBOLS[suit])];
  return el("span", { class: cls, "data-card": code, title: code, role: "img", "aria-label": cardName(code) }, face);
}

// Cards inside a sentence: small, one space apart (so the text reads "5♠ 5♦").
const inlineCards = (codes) => codes.flatMap((c, i) => (i ? [" ", card(c, true)] : [card(c, true)]));
const backs = (n, small = false) => Array.from({ length: n },
  () => el("span", { class: "card back" + (small ? " mini" : ""), "aria-hidden": "true" }, ""));

// Sorted for a hand: by rank (3 up to the ace), or by suit then rank (runs side by side);
// wild cards last either way.
function sortedHand(codes) {
  const bySuit = $("sort").value === "suit";
  const key = (c) => [isWild(c) ? 1 : 0, bySuit && !isWild(c) ? SUIT_ORDER.indexOf(suitOf(c)) : 0,
    rankIndex(c), SUIT_ORDER.indexOf(suitOf(c))];
  return [...codes].sort((a, b) => {
    const ka = key(a), kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
    return 0;
  });
}

const hand = (codes) => el("div", { class: "cards hand" }, sortedHand(codes).map((c) => card(c)));

// A card's name for a screen reader ("six of diamonds"), in the chosen language.
function cardName(code) {
  if (code === "JK") return t("rank.JK");
  return t("cardName", { rank: t("rank." + rankOf(code)), suit: t("suit." + suitOf(code)) });
}
