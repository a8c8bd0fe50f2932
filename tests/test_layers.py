"""service/'s folders are floors (CONTRIBUTING.md, "Where things live"): a module imports from
its own floor or a lower one, never a higher one. Every import counts, the ones a module makes
only for its types (``if TYPE_CHECKING:``) and the ones inside a function too: each is a
dependency a reader must follow, and an upward one is a cycle waiting to be closed.

The order is read from CONTRIBUTING.md's floors line, so the docs and this test cannot part.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ROOT / "service"
PACKAGE = "samba_adjudicator.service"


def _floors() -> list[str]:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    line = re.search(r"^\s*Floors, lowest first: (.+)$", text, re.MULTILINE)
    assert line, "CONTRIBUTING.md states the floors ('Floors, lowest first: `base` → …')"
    return re.findall(r"`([a-z0-9_]+)`", line.group(1))


def _imported_folders(source: str, folder: str) -> list[tuple[int, str]]:
    """(line, folder of service/) of every import a module of ``folder`` makes of another."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 2 and node.module:  # from ..codec import wire
                found.append((node.lineno, node.module.split(".")[0]))
            elif node.level == 2:  # from .. import codec
                found += [(node.lineno, alias.name) for alias in node.names]
            elif node.level == 0 and (node.module or "").startswith(PACKAGE + "."):
                found.append((node.lineno, node.module.split(".")[2]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    found.append((node.lineno, alias.name.split(".")[2]))
    return [(line, other) for line, other in found if other != folder]


def test_every_folder_of_service_is_a_floor():
    folders = {p.parent.name for p in SERVICE.glob("*/__init__.py")}
    assert folders == set(_floors())


def test_no_module_imports_from_a_higher_floor():
    floors = _floors()
    upward = []
    for path in sorted(SERVICE.rglob("*.py")):
        if "_compiled" in path.parts or path.parent == SERVICE:
            continue
        folder = path.relative_to(SERVICE).parts[0]
        own = floors.index(folder)
        for line, other in _imported_folders(path.read_text(encoding="utf-8"), folder):
            if floors.index(other) > own:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports from {other}/")
    assert upward == []


def test_the_walk_sees_every_kind_of_import():
    """The check is not vacuous: it finds a type-only, a function-local and an absolute
    import of another folder, and passes over its own folder's."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "from .lru import Lru\nfrom ..base import pb\n"
        "if TYPE_CHECKING:\n    from ..pipeline.call import Record\n"
        "def f():\n    from .. import transport\n"
        "import samba_adjudicator.service.web.pages\n"
    )
    found = sorted(other for _, other in _imported_folders(source, "base"))
    assert found == ["pipeline", "transport", "web"]
