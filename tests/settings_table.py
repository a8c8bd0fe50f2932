"""Writes the settings table of docs/service.md#flags-and-environment from the settings
themselves (``service.ops.config.markdown_table``): ``make docs``. The table sits between
two markers; tests/service/ops/test_config.py checks that it is current."""

from __future__ import annotations

import sys
from pathlib import Path

from samba_adjudicator.service.ops import config

DOC = Path(__file__).resolve().parent.parent / "docs" / "service.md"
BEGIN = (
    "<!-- settings: made from service/ops/config.py by `make docs`; edit the settings there -->\n"
)
END = "<!-- end of settings -->\n"


def written(text: str) -> str:
    """``text`` (the page) with its table between the markers made afresh."""
    head, found, rest = text.partition(BEGIN)
    if not found or END not in rest:
        raise SystemExit(f"{DOC}: the settings markers are missing")
    return head + BEGIN + config.markdown_table() + END + rest.split(END, 1)[1]


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(written(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
