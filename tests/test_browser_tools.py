"""The browser tests set up what they need beyond Chromium (tests/browser_tools.py): from a
state without axe-core, the set-up a test run names (`make install`) is enough (issue 56,
item 8: the browser tests failed after it for a missing axe-core)."""

from __future__ import annotations

import json

import pytest
from browser_tools import AXE_CORE, ROOT, axe_core

pytestmark = pytest.mark.tools


def test_axe_core_is_installed_by_the_tests_own_set_up(tmp_path):
    tools = tmp_path / "tools"  # no node_modules/axe-core: as after `make install` alone
    assert not (tools / AXE_CORE).exists()
    script = axe_core(tools)
    assert script == tools / AXE_CORE and script.stat().st_size > 100_000
    package = json.loads((tools / "node_modules" / "axe-core" / "package.json").read_text())
    assert f"axe-core@{package['version']}" in (ROOT / "Makefile").read_text()
    assert axe_core(tools) == script  # there now: not installed again


def test_the_accessibility_tests_use_that_set_up():
    play = (ROOT / "tests" / "test_browser_play.py").read_text(encoding="utf-8")
    assert "axe_core()" in play and "`make browser` installs it" not in play
