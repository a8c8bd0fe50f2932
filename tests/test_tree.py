"""The tests mirror the tree (CONTRIBUTING.md, "Where a test lives"): a test of one module,
run in process, lives at that module's path (tests/engine/…, tests/service/<folder>/…,
tests/clients/…) and is named ``test_<module>.py`` or ``test_<module>_<aspect>.py`` after a
module of the folder it mirrors; tests/ itself holds the shared helpers and the whole-system
tests, each listed below with what makes it one. A new test file at tests/ fails here until
it is moved to its module's path or listed."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

#: Kinds of whole-system test; each root test file names the one it is.
SERVERS = "starts the real servers and calls them over REST/gRPC"
BROWSER = "drives the pages in a real browser"
TOOLS = "builds or checks a deliverable with its real tools (chart, image, wheel, schema)"
CLUSTER = "several replicas behind a real balancer"
BENCH = "a bench's own check, run as the bench runs"
DOCS = "the docs and schema against the code"
GAME = "the whole game: playouts, playthroughs, fuzzing"
ACROSS = "one concern across engine/ and service/"

WHOLE_SYSTEM = {
    "test_adding_an_rpc.py": DOCS,
    "test_admin_port.py": SERVERS,
    "test_benches.py": BENCH,
    "test_bots_bench.py": BENCH,
    "test_bots_oracle.py": BENCH,
    "test_bots_service.py": SERVERS,
    "test_bounded_errors.py": SERVERS,
    "test_bounded_work.py": SERVERS,
    "test_browser.py": BROWSER,
    "test_browser_bots.py": BROWSER,
    "test_browser_game.py": BROWSER,
    "test_browser_play.py": BROWSER,
    "test_browser_table.py": BROWSER,
    "test_browser_tools.py": TOOLS,
    "test_chart_ops.py": TOOLS,
    "test_chart_settings.py": TOOLS,
    "test_cli.py": SERVERS,
    "test_client.py": SERVERS,
    "test_client_conformance.py": SERVERS,
    "test_client_retry.py": SERVERS,
    "test_client_tables.py": SERVERS,
    "test_client_twins.py": SERVERS,
    "test_client_typing.py": TOOLS,
    "test_client_wheel.py": TOOLS,
    "test_compiled_build.py": TOOLS,
    "test_computer_moves.py": SERVERS,
    "test_conformance.py": SERVERS,
    "test_cpp_example.py": SERVERS,
    "test_connection_limits.py": SERVERS,
    "test_deadlines.py": SERVERS,
    "test_deal_proof.py": SERVERS,
    "test_deal_vectors.py": SERVERS,
    "test_deploy.py": TOOLS,
    "test_docs.py": DOCS,
    "test_docs_run.py": DOCS,
    "test_drain.py": SERVERS,
    "test_drain_end.py": SERVERS,
    "test_fairness.py": SERVERS,
    "test_fuzz.py": GAME,
    "test_heavy_calls.py": SERVERS,
    "test_i18n.py": SERVERS,
    "test_i18n_edge.py": ACROSS,
    "test_i18n_texts.py": SERVERS,
    "test_int_range.py": SERVERS,
    "test_layers.py": DOCS,
    "test_memory_budget.py": SERVERS,
    "test_openapi_docs.py": SERVERS,
    "test_page_tokens.py": SERVERS,
    "test_parameter_descriptions.py": SERVERS,
    "test_playouts.py": GAME,
    "test_playthroughs.py": GAME,
    "test_ports.py": SERVERS,
    "test_ready_line.py": SERVERS,
    "test_rebalance.py": CLUSTER,
    "test_recipes.py": SERVERS,
    "test_release.py": TOOLS,
    "test_replica_stability.py": SERVERS,
    "test_rest_gzip.py": SERVERS,
    "test_reveal.py": SERVERS,
    "test_scale.py": CLUSTER,
    "test_scale_warm.py": CLUSTER,
    "test_schema.py": DOCS,
    "test_schema_evolution.py": TOOLS,
    "test_service_cors.py": SERVERS,
    "test_service_grpc.py": SERVERS,
    "test_service_lifecycle.py": SERVERS,
    "test_service_parity.py": SERVERS,
    "test_service_rest.py": SERVERS,
    "test_snapshot_fields.py": SERVERS,
    "test_tracing.py": SERVERS,
    "test_tree.py": DOCS,
    "test_unknown_enums.py": SERVERS,
    "test_views.py": SERVERS,
    "test_worker_ports.py": SERVERS,
    "test_worker_replacement.py": SERVERS,
    "test_ways_in.py": SERVERS,
}


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "node_modules" not in p.parts)


def _names_in(folder: Path) -> set[str]:
    """The modules and subpackages of a source folder, by the name a test takes."""
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    return modules | {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def _misplaced(path: Path) -> str | None:
    folder = ROOT / path.parent.relative_to(TESTS)
    if not (folder / "__init__.py").is_file():
        return f"{folder.relative_to(ROOT)}/ is not a package of the source tree"
    stem = path.stem.removeprefix("test_")
    if any(stem == name or stem.startswith(name + "_") for name in _names_in(folder)):
        return None
    return f"names no module of {folder.relative_to(ROOT)}/ (test_<module>[_<aspect>].py)"


def test_every_test_at_the_root_is_a_listed_whole_system_test():
    at_root = {p.name for p in TESTS.glob("test_*.py")}
    unlisted = sorted(at_root - WHOLE_SYSTEM.keys())
    assert unlisted == [], (
        f"{unlisted}: a test of one module lives at its path (tests/engine/…, "
        "tests/service/<folder>/…, tests/clients/…); a whole-system test is listed in "
        "tests/test_tree.py's WHOLE_SYSTEM"
    )
    assert sorted(WHOLE_SYSTEM.keys() - at_root) == [], "listed but gone: drop it from the list"


def test_every_test_below_the_root_mirrors_a_module():
    below = [p for p in _test_files() if p.parent != TESTS]
    assert below, "the per-module tests are found"
    wrong = {str(p.relative_to(ROOT)): why for p in below if (why := _misplaced(p))}
    assert wrong == {}


def test_no_two_test_files_share_a_name():
    """pytest imports each test file by its bare name (no __init__.py under tests/, so the
    shared helpers import as ``from builders import …``): two files of one name would
    collide."""
    seen: dict[str, list[str]] = {}
    for p in _test_files():
        seen.setdefault(p.name, []).append(str(p.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}
