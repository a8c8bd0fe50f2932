"""The compiled build (setup.py, engine/build.py, docs/performance.md#the-compiled-build).

`make test` runs the whole suite with ``SAMBA_BUILD=compiled``, so every other test runs
the mypyc-compiled modules there; these tests check the choice itself, and compare the
compiled engine with its Python source position by position (bench/differential.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from samba_adjudicator.engine import build

ROOT = Path(__file__).resolve().parent.parent
HOT_MODULES = (
    "samba_adjudicator.engine.game",
    "samba_adjudicator.engine.legal",
    "samba_adjudicator.engine.model",
    "samba_adjudicator.service.codec.convert",
    "samba_adjudicator.service.codec.jsonio",
    # the text generated from the field tables at set-up (codegen/snapshot_code.py)
    "samba_adjudicator.service.codec.snapshot_code",
    "samba_adjudicator.service.pipeline.loading",
)


def fake_install(tmp_path: Path, stamp: bool = True, changed: str = "") -> Path:
    """An installation's layout: engine/ with one source, its _compiled/ stamp."""
    engine = tmp_path / "engine"
    (engine / build.FOLDER).mkdir(parents=True)
    (engine / "game.py").write_text("RULE = 1\n")
    if stamp:
        digest = hashlib.sha256(b"RULE = 1\n").hexdigest()
        (engine / build.FOLDER / build.STAMP).write_text(json.dumps({"engine/game.py": digest}))
    if changed:
        (engine / "game.py").write_text(changed)
    return engine


def test_auto_takes_a_current_compiled_build(tmp_path):
    chosen = build.choose(fake_install(tmp_path), "auto")
    assert chosen.name == "compiled"


def test_auto_falls_back_when_nothing_is_compiled(tmp_path):
    chosen = build.choose(fake_install(tmp_path, stamp=False), "auto")
    assert chosen == build.Build("pure", "no compiled build is installed")


def test_a_stale_compiled_build_is_not_used(tmp_path):
    """A source edited after compiling: its compiled module would shadow the edit."""
    engine = fake_install(tmp_path, changed="RULE = 2\n")
    chosen = build.choose(engine, "auto")
    assert chosen.name == "pure" and "engine/game.py changed" in chosen.reason
    with pytest.raises(build.BuildError, match="stale .*engine/game.py"):
        build.choose(engine, "compiled")


def test_a_build_made_without_compiling_is_not_taken_for_a_compiled_one(tmp_path):
    """``make install SAMBA_COMPILE=0`` writes an empty stamp (the Makefile's step is done,
    nothing compiled): the Python source runs, and SAMBA_BUILD=compiled says so."""
    engine = fake_install(tmp_path)
    (engine / build.FOLDER / build.STAMP).write_text("{}\n")
    assert build.choose(engine, "auto") == build.Build("pure", "no compiled build is installed")
    with pytest.raises(build.BuildError, match="no compiled build is installed"):
        build.choose(engine, "compiled")


def test_compiled_is_required_when_asked(tmp_path):
    with pytest.raises(build.BuildError, match="SAMBA_BUILD=compiled, but no compiled build"):
        build.choose(fake_install(tmp_path, stamp=False), "compiled")


def test_pure_is_taken_even_when_compiled_is_present(tmp_path):
    assert build.choose(fake_install(tmp_path), "pure").name == "pure"


def test_an_unknown_choice_is_refused(tmp_path):
    with pytest.raises(build.BuildError, match="expected one of auto, compiled, pure"):
        build.choose(fake_install(tmp_path), "fast")


def test_search_path_puts_the_compiled_folder_first():
    path = build.search_path(["/x/engine"])
    if build.CURRENT.name == "compiled":
        assert path == ["/x/engine/_compiled", "/x/engine"]
    else:
        assert path == ["/x/engine"]


def _modules_in(env_build: str) -> dict:
    code = (
        "import importlib, json, sys\n"
        "from samba_adjudicator.engine import build\n"
        f"files = {{m: importlib.import_module(m).__file__ for m in {HOT_MODULES!r}}}\n"
        "print(json.dumps({'build': build.CURRENT.name, 'files': files}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "SAMBA_BUILD": env_build},
        check=True,
    )
    return json.loads(out.stdout)


def test_pure_imports_every_module_from_its_source():
    seen = _modules_in("pure")
    assert seen["build"] == "pure"
    assert all(f.endswith(".py") for f in seen["files"].values()), seen


@pytest.mark.skipif(
    build.CURRENT.name != "compiled",
    reason="the Python source runs (SAMBA_BUILD is not compiled here)",
)
def test_compiled_imports_every_hot_module_compiled():
    seen = _modules_in("compiled")
    assert seen["build"] == "compiled"
    for module, file in seen["files"].items():
        assert f"{os.sep}_compiled{os.sep}" in file and file.endswith(".so"), (module, file)


def test_make_test_runs_the_build_it_asks_for():
    """`make test` exports SAMBA_BUILD=compiled: the suite cannot pass on a silent fallback."""
    asked = os.environ.get("SAMBA_BUILD", "auto")
    if asked in ("compiled", "pure"):
        assert build.CURRENT.name == asked


@pytest.mark.skipif(
    build.CURRENT.name != "compiled",
    reason="no compiled build to compare (SAMBA_BUILD is not compiled here)",
)
@pytest.mark.parametrize("seed", [13, 14, 15])
def test_the_compiled_engine_answers_as_its_source(seed):
    """Every profile, variation and player count (a third of them per seed) played at
    random: at every position the compiled engine and the Python source answer validate,
    apply, replay, legal_actions, score, check_snapshot, the derived fields, check_meld and
    a seat's view alike. `bench/differential.py --old engine` runs the whole matrix."""
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "differential.py"),
            "--old",
            str(ROOT / "engine"),
            "--deals",
            "1",
            "--plies",
            "10",
            "--every",
            "3",
            "--seed",
            str(seed),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "SAMBA_BUILD": "compiled"},
        timeout=900,
    )
    summary = run.stdout.strip().splitlines()
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert any(" 0 differences" in line and "calls compared" in line for line in summary)


def test_the_problems_of_a_request_are_collected_bounded():
    """A ProblemList keeps the first MAX_LISTED_PROBLEMS and counts the rest. The compiled
    build once appended to it with the C list primitive, which skipped that bound: a request
    with 150,000 bad cards kept them all (115 MB instead of 40 MB). Collectors are typed
    ``Problems`` (a MutableSequence) so that every build calls the bounded ``append``."""
    from huge_positions import bad_codes, huge_hand

    from samba_adjudicator.engine.model import InvalidInput
    from samba_adjudicator.service.base import pb
    from samba_adjudicator.service.base.errors import MAX_LISTED_PROBLEMS
    from samba_adjudicator.service.codec import jsonio
    from samba_adjudicator.service.pipeline.decoding import Request
    from samba_adjudicator.service.pipeline.loading import SnapshotLoader

    body = {"snapshot": bad_codes(huge_hand(), 5000), "action": {"seat": 0, "drawStock": {}}}
    msg, problems = jsonio.decode(json.dumps(body), pb.ValidateActionRequest)
    with pytest.raises(InvalidInput) as refused:
        SnapshotLoader().load(Request("ValidateAction", msg, problems))
    found = refused.value.problems
    assert len(found) == MAX_LISTED_PROBLEMS
    assert len(found) + found.omitted >= 5000


def test_make_rebuilds_when_any_compiled_source_changes():
    """The Makefile derives HOT_SOURCES (what makes `make runtime` compile again) from the
    compiled folders pyproject.toml lists, and defines it before `install` uses it."""
    import subprocess
    import tomllib

    folders = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["samba-adjudicator"]
    expected = {
        str(p.relative_to(ROOT)) for f in folders["compiled"] for p in (ROOT / f).glob("*.py")
    }
    database = subprocess.run(
        ["make", "-pn", "install"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    line = next(x for x in database.splitlines() if x.startswith("HOT_SOURCES :="))
    assert set(line.split(":=", 1)[1].split()) == expected
    assert {"service/codec/jsonio.py", "service/pipeline/api.py", "engine/game.py"} <= expected
    makefile = (ROOT / "Makefile").read_text()
    assert makefile.index("COMPILED :=") < makefile.index("RUNTIME := $(STAMP) $(COMPILED)")
