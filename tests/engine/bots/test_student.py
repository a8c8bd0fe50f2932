"""STRONG's teacher and student (docs/bots.md#the-teacher-and-the-student): the teacher who
sees every card stays offline, the training library stays out of the runtime, the
student's weights depend on their seeds alone, and the engine evaluates them as the
fitted network does."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from samba_adjudicator.engine import deal, player_view, resolve
from samba_adjudicator.engine.bots import strong, student
from samba_adjudicator.engine.bots.strong_options import STRONG
from samba_adjudicator.engine.bots.worlds import neutral_world

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

#: What only the development set may import: the offline teacher and trainers, and the
#: training libraries.
OFFLINE = (
    "teacher",
    "train_student",
    "train_bots",
    "bots_oracle",
    "bots_bench",
    "numpy",
    "sklearn",
    "scipy",
    "lightgbm",
    "torch",
)
TRAINING_PACKAGES = ("numpy", "scikit-learn", "scipy", "lightgbm", "torch")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def offline_imports(folders: tuple[str, ...]) -> list[str]:
    """``path: module`` for every import of an offline module under ``folders``."""
    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] in OFFLINE or (parts[0] == "bench" and len(parts) > 1):
                    found.append(f"{path.relative_to(ROOT)}: {name}")
    return found


def test_no_module_of_the_engine_or_the_service_imports_the_teacher_or_a_training_library():
    assert offline_imports(("engine", "service")) == []


def test_the_scan_finds_an_import_of_the_teacher(tmp_path, monkeypatch):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "leak.py").write_text("from teacher import replay\nimport numpy\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert sorted(offline_imports(("engine",))) == [
        "engine/leak.py: numpy",
        "engine/leak.py: teacher",
    ]


def _package(requirement: str) -> str:
    name = requirement.split(";")[0]
    for mark in "<>=!~[ ":
        name = name.split(mark)[0]
    return name.strip().lower()


def test_the_training_library_is_in_the_development_set_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = {_package(r) for r in project["dependencies"]}
    build = {
        _package(line)
        for line in (ROOT / "requirements-build.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    dev = {_package(r) for r in project["optional-dependencies"]["dev"]}
    assert runtime.isdisjoint(TRAINING_PACKAGES)
    assert build.isdisjoint(TRAINING_PACKAGES)
    assert {"numpy", "scikit-learn"} <= dev


def _run(args: list[str], hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run([sys.executable, *args], check=True, env=env, capture_output=True)


@pytest.fixture(scope="module")
def labels(tmp_path_factory) -> tuple[Path, Path]:
    """The teacher's labels of two decisions a table, one playout each, written twice by
    processes of different hash seeds."""
    folder = tmp_path_factory.mktemp("labels")
    paths = (folder / "a.jsonl", folder / "b.jsonl")
    for path, hash_seed in zip(paths, ("1", "2"), strict=True):
        teacher = str(ROOT / "bench" / "teacher.py")
        _run([teacher, "--per-table", "2", "--playouts", "1", "--out", str(path)], hash_seed)
    return paths


def test_the_teacher_labels_every_candidate_and_depends_on_its_seeds_alone(labels):
    first, second = labels
    assert first.read_bytes() == second.read_bytes()
    sys.path.insert(0, str(ROOT / "bench"))
    import train_student

    header, rows = train_student.load(str(first))
    assert "bench/teacher.py --per-table 2 --playouts 1" in header["command"]
    assert len(rows) == 12 and header["decisions"] == 12
    for row in rows:
        assert 2 <= len(row["values"]) <= STRONG.candidates


def test_the_student_retrained_on_the_same_labels_writes_the_same_bytes(labels, tmp_path):
    written = []
    for name, hash_seed in (("a.py", "1"), ("b.py", "2")):
        out = tmp_path / name
        args = ["--part", "student", "--labels", str(labels[0]), "--student-out", str(out)]
        _run([str(ROOT / "bench" / "train_bots.py"), *args], hash_seed)
        written.append(out.read_bytes())
    assert written[0] == written[1]
    text = written[0].decode()
    assert "Command: make train-bots" in text and "teacher-<profile>-<players>-<i>" in text
    namespace: dict[str, object] = {}
    exec(text, namespace)  # the data module is plain Python
    assert len(namespace["INPUT_MEAN"]) == len(student.FEATURES)  # type: ignore[arg-type]
    assert len(namespace["OUTPUT"]) > 0  # type: ignore[arg-type]


def test_the_engine_evaluates_the_network_as_the_trainer_does(monkeypatch):
    import train_student

    view = player_view(deal(resolve("classic"), 2, "student-eval"), 0)
    seat = 0
    picks = [r.action for r in strong.candidates(view, seat)]
    world = neutral_world(view)
    xs = [student.features(view, world, seat, a, rank) for rank, a in enumerate(picks)]
    assert all(len(x) == len(student.FEATURES) for x in xs)
    n = len(student.FEATURES)
    net = (
        [float(i % 3) for i in range(n)],
        [1.0 + i % 2 for i in range(n)],
        [0.5, -0.25],
        [[0.01 * ((i + j) % 5 - 2) for i in range(n)] for j in range(2)],
        [2.0, -3.0],
        0.75,
    )
    for name, value in zip(
        ("INPUT_MEAN", "INPUT_SCALE", "HIDDEN", "WEIGHTS_1", "OUTPUT", "OUTPUT_BIAS"),
        net,
        strict=True,
    ):
        monkeypatch.setattr(student, name, value if name == "OUTPUT_BIAS" else tuple(value))  # type: ignore[arg-type]
    for x in xs:
        assert student.evaluate(x) == pytest.approx(train_student.predict(net, x))


def test_the_committed_student_records_how_it_was_made():
    doc = (ROOT / "engine" / "bots" / "student_weights.py").read_text()
    assert "Command: make train-bots" in doc and "teacher-<profile>-<players>-<i>" in doc
    labels = (ROOT / "bench" / "data" / "teacher.jsonl").read_text().splitlines()
    assert "bench/teacher.py" in labels[0]


def test_split_half_reliability_is_one_for_a_repeatable_label_and_minus_one_reversed():
    import teacher

    steady = [
        {"values": [[0.0, 0.0], [10.0, 10.0], [-5.0, -5.0]]},
        {"values": [[1.0, 1.0], [4.0, 4.0]]},
    ]
    assert teacher.split_half(steady, [0], [1]) == pytest.approx(1.0)
    assert teacher.random_halves(steady, 1) == pytest.approx(1.0)
    flipped = [{"values": [[0.0, 0.0], [10.0, -10.0], [-5.0, 5.0]]}]
    assert teacher.split_half(flipped, [0], [1]) == pytest.approx(-1.0)
    # "won" and the clipped margin read each playout's margin before the means
    assert teacher._won(1.0) == 1.0 and teacher._won(0.0) == 0.5 and teacher._won(-3.0) == 0.0
    assert teacher._clipped(10 * teacher.CLIP) == teacher.CLIP


def test_the_label_noise_replays_the_labels_playouts_and_more(labels, tmp_path):
    """--reliability plays the labels' own decisions twice as often: its first playouts are
    the labels' (the same seeds), and it prints a reliability for each k."""
    out = tmp_path / "noise.json"
    teacher = str(ROOT / "bench" / "teacher.py")
    args = [teacher, "--reliability", "6", "--playouts", "1", "--out", str(out)]
    done = subprocess.run([sys.executable, *args], check=True, capture_output=True, text=True)
    assert "label noise: 6 decisions" in done.stdout
    import json

    import train_student

    data = json.loads(out.read_text())
    _, rows = train_student.load(str(labels[0]))
    firsts = {(r["seed"], r["step"]): r["values"] for r in rows}
    assert len(data["decisions"]) == 6 and [f["playouts"] for f in data["reliability"]] == [1]
    for row in data["decisions"]:
        assert all(len(vs) == 2 for vs in row["values"])
        assert [round(vs[0], 3) for vs in row["values"]] == firsts[(row["seed"], row["step"])]
