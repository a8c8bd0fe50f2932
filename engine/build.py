"""Which build of the hot modules is imported: the mypyc-compiled one or the Python source.

The engine and the service's per-call modules (setup.py lists them) can be compiled with
mypyc. The compiled modules live in each package's ``_compiled`` folder, not beside their
sources; when the compiled build is chosen, that folder is put first on the package's
``__path__``, so ``samba_adjudicator.engine.game`` is found there before ``game.py``.
The choice is made once per process, from the environment variable ``SAMBA_BUILD``:

- ``auto`` (default): compiled when it is present and was compiled from the sources beside
  it (``SOURCES.json`` holds their hashes), else the Python source;
- ``compiled``: compiled, or the import fails saying why (nothing falls back silently);
- ``pure``: the Python source, even when a compiled build is present.

Both builds behave the same; the compiled one is faster (docs/performance.md). This module
is the engine's only read of its environment, and it is never compiled itself.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

ENV = "SAMBA_BUILD"
CHOICES = ("auto", "compiled", "pure")
FOLDER = "_compiled"
STAMP = "SOURCES.json"


@dataclass(frozen=True)
class Build:
    """The build this process runs: ``name`` is "compiled" or "pure"; ``reason`` says why."""

    name: str
    reason: str


class BuildError(ImportError):
    """SAMBA_BUILD asks for something this installation cannot give."""


def _stale_sources(root: Path, stamp: Path) -> list[str]:
    """Sources that changed (or vanished) since the compiled build was made from them."""
    recorded: dict[str, str] = json.loads(stamp.read_text())
    stale = []
    for relative, digest in sorted(recorded.items()):
        path = root / relative
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            stale.append(relative)
    return stale


def _compiled_state(engine_dir: Path) -> tuple[bool, str]:
    """(usable, why) for the compiled build next to the engine package at ``engine_dir``."""
    stamp = engine_dir / FOLDER / STAMP
    if not stamp.is_file() or stamp.read_text().strip() == "{}":  # {}: built, nothing compiled
        return False, "no compiled build is installed"
    stale = _stale_sources(engine_dir.parent, stamp)
    if stale:
        shown = ", ".join(stale[:3]) + (", …" if len(stale) > 3 else "")
        return False, (
            f"the compiled build is stale ({shown} changed since it was "
            "compiled; `make install` compiles again)"
        )
    return True, f"compiled with mypyc ({engine_dir / FOLDER})"


def choose(engine_dir: Path, requested: str) -> Build:
    """The build for ``requested`` (a ``SAMBA_BUILD`` value); raises BuildError."""
    if requested not in CHOICES:
        raise BuildError(f"{ENV}={requested!r}: expected one of {', '.join(CHOICES)}")
    if requested == "pure":
        return Build("pure", f"{ENV}=pure")
    usable, why = _compiled_state(engine_dir)
    if usable:
        return Build("compiled", why)
    if requested == "compiled":
        raise BuildError(f"{ENV}=compiled, but {why}")
    return Build("pure", why)


_ENGINE_DIR = Path(__file__).resolve().parent
CURRENT = choose(_ENGINE_DIR, os.environ.get(ENV, "auto").strip().lower() or "auto")


def search_path(package_path: list[str]) -> list[str]:
    """A package's ``__path__`` with its compiled folder first when the build is compiled."""
    if CURRENT.name != "compiled":
        return list(package_path)
    return [str(Path(p) / FOLDER) for p in package_path] + list(package_path)
