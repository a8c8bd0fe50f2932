"""The repository's documentation stands alone: every link resolves inside it.

- every violation code's ``rule`` names a heading or anchor of docs/ that exists;
- every relative link of docs/*.md and README.md names a file (and anchor) that exists;
- no file of the repository points outside it;
- docs/rules.md's "where a rule lives" table names modules and attributes that exist;
- docs/rules.md's table of group wild-rule examples is what the engine answers.
"""

from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

import pytest

from samba_adjudicator.engine.game import check_meld
from samba_adjudicator.engine.ruleset import resolve
from samba_adjudicator.engine.violations import CODES, violation
from samba_adjudicator.service.web.pages import github_slug

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    found = set(re.findall(r'<a id="([^"]+)"></a>', text))
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and (m := re.match(r"#{1,6} (.+)", line)):
            found.add(github_slug(m.group(1)))
    return found


def resolves(reference: str, base: Path = ROOT) -> bool:
    """``docs/rules.md#initial-meld`` names an existing file and, if given, anchor."""
    path, _, anchor = reference.partition("#")
    target = (base / path).resolve() if path else None
    if target is None or not target.is_file():
        return False
    return not anchor or anchor in anchors(target)


def test_github_slug_matches_github():
    assert github_slug("Runs (samba profiles)") == "runs-samba-profiles"
    assert github_slug("Wild swap (`classic`)") == "wild-swap-classic"


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_violation_rule_is_a_section_of_the_docs(code):
    rule = violation(code).rule
    assert re.fullmatch(r"docs/[a-z]+\.md#[a-z0-9-]+", rule), rule
    assert resolves(rule), f"{code}: {rule} names no heading or anchor of the docs"


def test_a_missing_anchor_does_not_resolve():
    assert not resolves("docs/rules.md#no-such-section")
    assert not resolves("docs/nothing.md#turn")


def _markdown_files() -> list[Path]:
    return sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]


@pytest.mark.parametrize("doc", _markdown_files(), ids=lambda p: p.name)
def test_every_relative_link_resolves(doc):
    text = doc.read_text(encoding="utf-8")
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL: none is expected, see the test below
        if target.startswith("#"):
            ok = target[1:] in anchors(doc)
        else:
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve()
            ok = file.exists() and (not anchor or anchor in anchors(file))
        if not ok:
            broken.append(target)
    assert broken == []


def test_nothing_in_the_repository_points_outside_it():
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    outside = re.compile(r"RULES\.md|CONTRACT\.md|\.\./shared|shared/seeds")
    offenders = []
    for name in files:
        path = ROOT / name
        if path.suffix in {".png", ".ico"} or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if name == "tests/test_docs.py":
            text = text.replace(outside.pattern, "")
        offenders += [f"{name}: {m}" for m in outside.findall(text)]
    assert offenders == []


# -- docs/rules.md "Where a rule lives" ---------------------------------------------------


def _where_it_lives_rows() -> list[tuple[str, str]]:
    text = RULES.read_text(encoding="utf-8")
    section = text.split('<a id="where-it-lives"></a>', 1)[1].split("\n## ", 2)[1]
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    assert rows, "the table is missing"
    return [tuple(cell.strip() for cell in row.strip("|").split("|")[1:3]) for row in rows]


def _cited(modules_cell: str, functions_cell: str):
    """(module, attribute) pairs: each module with the names in parentheses after it; the
    last column's names (``BLOCKING[blocked_top]``) live in the row's first module."""
    pairs = []
    modules = re.findall(r"`engine/(\w+)\.py`(?: \(([^)]*)\))?", modules_cell)
    for module, names in modules:
        pairs.append((module, None))
        pairs += [(module, n) for n in re.findall(r"`(\w+)`", names or "")]
    first = modules[0][0]
    for name in re.findall(r"`([\w/]+)(?:\[\w+\])?`", functions_cell):
        pairs += [(first, n) for n in name.split("/")]
    return pairs


def _ruleset_fields() -> set[str]:
    """Parameter names: the Ruleset's, and those that depend on the number of players."""
    rules = resolve("classic")
    return set(rules.__dataclass_fields__) | set(rules.table_sizes[0].__dataclass_fields__)


@pytest.mark.parametrize("row", _where_it_lives_rows(), ids=lambda r: r[0][:30])
def test_where_it_lives_names_real_modules_and_functions(row):
    missing = []
    for module, name in _cited(*row):
        mod = importlib.import_module(f"samba_adjudicator.engine.{module}")
        # the last column names the Ruleset parameter that chooses the function
        if name is not None and not hasattr(mod, name) and name not in _ruleset_fields():
            missing.append(f"{module}.{name}")
    assert missing == []


def test_where_it_lives_check_catches_a_wrong_name():
    pairs = _cited("`engine/pile.py` (`NO_SUCH_TABLE`)", "–")
    assert ("pile", "NO_SUCH_TABLE") in pairs
    assert not hasattr(importlib.import_module("samba_adjudicator.engine.pile"), "NO_SUCH_TABLE")


# -- docs/rules.md group wild-rule examples -----------------------------------------------


def _wild_rule_examples():
    text = RULES.read_text(encoding="utf-8")
    section = text.split('<a id="wild-rules"></a>', 1)[1].split("<a id=", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("| `")]
    header = next(line for line in section.splitlines() if line.startswith("| group |"))
    profiles = [c.strip() for c in header.strip("|").split("|")[1:]]
    for line in table:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for profile, verdict in zip(profiles, cells[1:], strict=True):
            yield cells[0].strip("`"), profile, verdict


@pytest.mark.parametrize("cards,profile,verdict", list(_wild_rule_examples()))
def test_wild_rule_examples_are_what_the_engine_answers(cards, profile, verdict):
    assert verdict in {"legal", "illegal"}
    assert check_meld(resolve(profile), tuple(cards.split())).valid == (verdict == "legal")


# -- docs/rules.md parameter table --------------------------------------------------------


def _parameter_table() -> tuple[list[str], dict[str, list[str]]]:
    text = RULES.read_text(encoding="utf-8")
    section = text.split('<a id="parameters"></a>', 1)[1].split("<a id=", 1)[0]
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("| ")
    ]
    profiles = rows[0][1:]
    return profiles, {row[0]: row[1:] for row in rows[1:]}


def _ints(cell: str) -> list[int]:
    return [int(n) for n in re.findall(r"-?\d+", cell.replace("−", "-"))]


def _yes(cell: str) -> bool:
    return cell.split()[0].strip("*") == "yes"


def _players(cell: str) -> set[int]:
    if m := re.fullmatch(r"(\d)–(\d)", cell):
        return set(range(int(m.group(1)), int(m.group(2)) + 1))
    return set(_ints(cell))


#: row of the table -> (what the cell says, what the resolved ruleset says)
PARAMETER_ROWS = {
    "decks / jokers": (_ints, lambda r: [r.decks, r.jokers]),
    "players allowed": (_players, lambda r: {t.players for t in r.table_sizes}),
    "runs": (_yes, lambda r: r.runs_allowed),
    "`group_max_wilds`": (lambda c: _ints(c)[0], lambda r: r.group_max_wilds),
    "`group_wild_rule`": (str, lambda r: r.group_wild_rule.value),
    "`wild_swap`": (_yes, lambda r: r.wild_swap),
    "`freeze`": (str, lambda r: r.freeze.value),
    "take with natural + wild (unfrozen)": (_yes, lambda r: r.take_natural_plus_wild),
    "take the top card to a run": (_yes, lambda r: r.take_top_card_to_run),
    "red 3 value / all of them": (
        lambda c: _ints(c)[:2],
        lambda r: [r.red_three_value, r.red_three_all_value],
    ),
    "`red_three_positive_if`": (lambda c: c.split()[0], lambda r: r.red_three_positive_if.value),
    "`red_three_penalty`": (lambda c: c.split()[0], lambda r: r.red_three_penalty.value),
    "`black_three_group_max`": (lambda c: _ints(c)[0], lambda r: r.black_three_group_max),
    "black 3 left in hand": (lambda c: _ints(c)[0], lambda r: r.black_three_in_hand),
    "red 3 left in hand": (lambda c: _ints(c)[0], lambda r: r.red_three_in_hand),
    "going-out bonus": (lambda c: _ints(c)[0], lambda r: r.go_out_bonus),
    "samba / open samba bonus": (
        lambda c: _ints(c) or [0, 0],
        lambda r: [r.samba_bonus, r.open_samba_bonus],
    ),
    "`max_deals`": (lambda c: (_ints(c) or [0])[0], lambda r: r.max_deals),
}


@pytest.mark.parametrize("row", sorted(PARAMETER_ROWS))
def test_parameter_table_says_what_the_profiles_are(row):
    profiles, table = _parameter_table()
    said, actual = PARAMETER_ROWS[row]
    wrong = {
        p.strip("`"): cell
        for p, cell in zip(profiles, table[row], strict=True)
        if said(cell) != actual(resolve(p.strip("`")))
    }
    assert wrong == {}


def test_initial_meld_bands_in_the_table_are_the_profiles():
    profiles, table = _parameter_table()
    row = table["initial meld (match score → points)"]
    cells = dict(zip((p.strip("`") for p in profiles), row, strict=True))
    for profile, cell in cells.items():
        if cell.startswith("as pagat"):
            cell = cells["pagat"] if "but" not in cell else cells["pagat"].replace("150", "160")
        bands = resolve(profile).initial_meld
        assert [b.points for b in bands] == _ints(re.sub(r"(below |from )?-?\d+:", "", cell)), (
            profile
        )


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\n\s*", " ", text))


def test_api_and_bots_say_one_sentence_on_sending_a_computer_move_twice():
    """docs/api.md said a computer move is idempotent ("the same request gives the same
    move") while docs/bots.md said STRONG's clock can change it (issue 47, item 12): both now
    say the same sentence, the one engine/bots/strong.py holds (CLOCK_SLACK, CLOCK_FLOOR)."""
    from samba_adjudicator.engine.bots import strong

    api = _one_line((DOCS / "api.md").read_text(encoding="utf-8"))
    bots = _one_line((DOCS / "bots.md").read_text(encoding="utf-8"))
    found = re.search(r"\*\*Sent twice, a computer move[^*]*\*\*[^.]*\.", bots)
    assert found and found.group(0) in api
    assert (strong.CLOCK_SLACK, strong.CLOCK_FLOOR) == (2.0, 0.5)  # "twice ... half a second"
    assert "twice `budgetMs` plus half a second of the search's own" in found.group(0)
    assert "idempotent: the same request gives the same move" not in api


def _details_by_code() -> dict[str, set[str]]:
    """Every detail key each violation code is made with: the keywords of the engine's calls
    of ``violation`` and ``penalty_violations`` whose code is a literal."""
    import ast

    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            codes = [a.value for a in node.args if isinstance(a, ast.Constant) and a.value in CODES]
            if name in {"violation", "penalty_violations"} and codes:
                keys = {k.arg for k in node.keywords if k.arg and k.arg != "penalty"}
                found.setdefault(codes[0], set()).update(keys)
    return {code: keys for code, keys in found.items() if keys}


def test_the_details_table_names_every_detail_of_every_code():
    """docs/api.md#violation-details lists, per code, exactly the details the engine gives."""
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    section = text.split('<a id="violation-details"></a>', 1)[1].split("<a id=", 1)[0]
    table = {
        m.group(1): set(re.findall(r"`([a-zA-Z]+)` [a-z]", m.group(2)))
        for m in re.finditer(r"^\| `([A-Z_]+)` \| (.+) \|$", section, re.MULTILINE)
    }
    assert table == _details_by_code()
