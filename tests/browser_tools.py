"""What the browser tests need besides Chromium, set up by the tests themselves: axe-core,
the accessibility checker tests/test_browser_play.py runs in the page.

It is installed the first time a test asks for it, by the Makefile's own rule (the
version is written once, there), so that a browser test run as CONTRIBUTING.md says
(``.venv/bin/python -m pytest tests/test_browser_play.py``) works after ``make install``
alone: it used to fail for a missing axe-core that only ``make browser`` installed. Two
pytest workers asking at once install it once (a lock file beside it).
"""

from __future__ import annotations

import fcntl
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AXE_CORE = Path("node_modules") / "axe-core" / "axe.min.js"


def axe_core(tools: Path = ROOT / ".tools") -> Path:
    """The path of axe-core's script under ``tools`` (the Makefile's TOOLS), installed with
    ``make`` when missing; the test fails, saying why, when it cannot be."""
    script = tools / AXE_CORE
    if script.exists():
        return script
    tools.mkdir(parents=True, exist_ok=True)
    with open(tools / ".axe-core.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not script.exists():
            _make(tools, script)
    return script


def _make(tools: Path, script: Path) -> None:
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", f"TOOLS={tools}", str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0 or not script.exists():
        pytest.fail(
            f"axe-core could not be installed at {script} (npm, `make browser`):\n"
            + (done.stdout + done.stderr)[-2000:],
            pytrace=False,
        )
