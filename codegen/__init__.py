"""The build side's code generators for the service, as dataclass_inits.py is the engine's:
run by the set-up, never imported by the service at run time.

- ``codegen.fields``: one field table per message, read from the protobuf descriptors and
  the engine's dataclasses;
- ``codegen.snapshot_code``: the snapshot's codec (reader, writer, required walks of every
  request, derived-field check) written out of the tables as a module of its own.

``python -m codegen.snapshot_code OUT`` writes the module; proto/generate.sh runs it (``make
proto``, ``make install``, the image's build stage) beside the generated protobuf code, as
``samba_adjudicator.schema.v1.snapshot_code``, never committed. The tools' Python that runs
it has not installed this project: ``source_tree`` makes the checkout's packages importable
under their installed names (pyproject.toml's package-dir), as this package is imported.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def source_tree() -> None:
    """``samba_adjudicator.engine``, ``.service`` and ``.schema`` importable from this
    checkout, when no installed ``samba_adjudicator`` provides them."""
    if importlib.util.find_spec("samba_adjudicator") is not None:
        return
    with open(ROOT / "pyproject.toml", "rb") as f:
        folders = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    top = sys.modules["samba_adjudicator"] = types.ModuleType("samba_adjudicator")
    top.__path__ = []
    for name in ("engine", "service", "schema"):
        folder = ROOT / folders[f"samba_adjudicator.{name}"]
        spec = importlib.util.spec_from_file_location(
            f"samba_adjudicator.{name}",
            folder / "__init__.py",
            submodule_search_locations=[str(folder)],
        )
        assert spec is not None and spec.loader is not None
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        setattr(top, name, module)


source_tree()
