"""Writes, from the settings model's JSON Schema (``service.ops.config.Settings``), the
settings table of docs/service.md#flags-and-environment and the ``server`` settings of the
chart's values.schema.json: ``make docs``. The table sits between two markers;
tests/service/ops/test_config.py and test_config_model.py check that both are current."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from samba_adjudicator.service.ops import config

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "service.md"
CHART_SCHEMA = ROOT / "helm" / "samba-adjudicator" / "values.schema.json"
#: The keywords of a setting's schema the chart takes from the model's.
KEYWORDS = ("type", "minimum", "maximum", "enum", "items")
BEGIN = (
    "<!-- settings: made from service/ops/config.py by `make docs`; edit the settings there -->\n"
)
END = "<!-- end of settings -->\n"


def markdown_table() -> str:
    """The table: every listed setting's flag, twin, default, range or choices, and help."""
    rows = ["| flag | environment | default | range | meaning |", "|---|---|---|---|---|"]
    for name, s in config.schema().items():
        if s.get("listed", True):
            flag = f"`{config.flag_of(name)}`" if s.get("flag", True) else "—"
            bounds = config.range_text(s).replace("..", "–") or ", ".join(s.get("enum", ()))
            env, default = config.env_of(name), config.default_text(s)
            rows.append(f"| {flag} | `{env}` | `{default}` | {bounds} | {s['description']} |")
    return "\n".join(rows) + "\n"


def written(text: str) -> str:
    """``text`` (the page) with its table between the markers made afresh."""
    head, found, rest = text.partition(BEGIN)
    if not found or END not in rest:
        raise SystemExit(f"{DOC}: the settings markers are missing")
    return head + BEGIN + markdown_table() + END + rest.split(END, 1)[1]


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _narrowed(model: dict, chart: dict) -> dict:
    """The model's keywords, where the chart may only narrow them (a pod's port cannot be
    0, the drain is whole seconds: tests/test_chart_settings.py says why) and add its own
    (an item's uniqueness)."""
    out = {k: model[k] for k in KEYWORDS if k in model}
    if "minimum" in out and "minimum" in chart:
        out["minimum"] = max(out["minimum"], chart["minimum"])
    if "maximum" in out and "maximum" in chart:
        out["maximum"] = min(out["maximum"], chart["maximum"])
    if out.get("type") == "number" and chart.get("type") == "integer":
        out["type"] = "integer"
    if "items" in out:
        out["items"] = chart.get("items", {}) | out["items"]
    return chart | out


def chart_schema(text: str) -> str:
    """values.schema.json (``text``) with each setting the chart carries (listed, with a
    flag) made afresh from the model's JSON Schema."""
    schema = json.loads(text)
    chart = schema["properties"]["server"]["properties"]
    for name, s in config.schema().items():
        if s.get("listed", True) and s.get("flag", True):
            chart[camel(name)] = _narrowed(s, chart.get(camel(name), {}))
    return json.dumps(schema, indent=2) + "\n"


def main() -> int:
    DOC.write_text(written(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    CHART_SCHEMA.write_text(chart_schema(CHART_SCHEMA.read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
