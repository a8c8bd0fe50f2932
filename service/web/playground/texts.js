// The playground's labels in the chosen language (/playground/texts.json): a label with its
// {placeholders} filled, as text or with nodes (cards in a sentence). Uses the helpers of
// playground.js once the page has started.
"use strict";

// -- texts ----------------------------------------------------------------------------------

// A label of the page in the chosen language, {placeholders} filled in as text.
function t(key, fields = {}) {
  const template = (state.texts && state.texts.ui[key]) || key;
  return template.replace(/\{(\w+)\}/g, (all, name) => (fields[name] ?? all));
}

// A template filled with nodes: each {name} becomes fields[name] (a string, a node or a list
// of them), so cards inside a sentence are shown as cards.
function fill(template, fields) {
  return template.split(/(\{\w+\})/).filter((part) => part !== "").map((part) => {
    const m = part.match(/^\{(\w+)\}$/);
    if (!m || fields[m[1]] === undefined) return part;
    const value = fields[m[1]];
    return Array.isArray(value) ? el("span", { class: "inline" }, value) : value;
  });
}
const ui = (key, fields) => fill(t(key), fields);

// Every static label: data-i18n names its key; data-i18n-attr an attribute to set instead.
function applyLabels() {
  for (const node of document.querySelectorAll("[data-i18n]")) {
    const text = t(node.dataset.i18n);
    if (node.dataset.i18nAttr) node.setAttribute(node.dataset.i18nAttr, text);
    else node.textContent = text;
  }
  document.title = t("title");
  document.documentElement.lang = state.lang;
}

async function loadTexts() {
  state.texts = await call("/playground/texts.json");
  applyLabels();
}
