"""Differential run: this checkout's engine against another engine over played positions.

Used when the engine is restructured without changing what it decides (issue 12): every
profile, variation and player count is dealt and played at random through the new
engine's legal actions; at every position both engines answer the same calls and the
answers are compared field by field (violations, events, snapshots, scores, bad-input
problems, legal-action lists):

    git worktree add /tmp/old-engine <commit before the change>
    .venv/bin/python bench/differential.py --old /tmp/old-engine/engine

The old engine is imported from its folder under another package name, so both run in
one process, and always from its Python source. Given this checkout's own engine folder, it
compares the compiled build with the Python source (tests/test_compiled_build.py runs it
so in `make test`):

    SAMBA_BUILD=compiled .venv/bin/python bench/differential.py --old engine

Exit status 1 when any difference is found (the first ones are printed).
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import importlib
import importlib.util
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # builders.one_card_variants, shared with the tests

from builders import one_card_variants  # noqa: E402

from samba_adjudicator import engine as new_engine  # noqa: E402
from samba_adjudicator.engine import model as nm  # noqa: E402
from samba_adjudicator.engine.ruleset import SixPlayerLayout  # noqa: E402

OLD_PACKAGE = "samba_differential_old_engine"
VARIATION_SETS = ("", "+uruguayan", "+open", "+open+uruguayan")
#: One deck and seven cards each: the stock runs out within a few rounds.
SHORT_STOCK = {"decks": 1, "jokers": 2, "hand_size": 7}


def load_old(folder: Path) -> ModuleType:
    """The engine package in ``folder`` imported as OLD_PACKAGE (relative imports only)."""
    spec = importlib.util.spec_from_file_location(
        OLD_PACKAGE, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        raise SystemExit(f"no engine package in {folder}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[OLD_PACKAGE] = module
    # The other engine always runs from its Python source (engine/build.py): a compiled
    # module belongs to the one package name it was compiled under.
    chosen = os.environ.get("SAMBA_BUILD")
    os.environ["SAMBA_BUILD"] = "pure"
    try:
        spec.loader.exec_module(module)
    finally:
        if chosen is None:
            del os.environ["SAMBA_BUILD"]
        else:
            os.environ["SAMBA_BUILD"] = chosen
    return module


def specs() -> Iterator[tuple[str, dict[str, Any] | None, int]]:
    """(profile spec, overrides, players) for every profile, variation and player count."""
    for profile in new_engine.PROFILES:
        variations = VARIATION_SETS if profile != "canasta" else ("",)
        for variation in variations:
            spec = profile + variation
            for players in new_engine.resolve(spec).players_allowed:
                yield spec, None, players
                if players == 6:
                    yield spec, {"six_player_layout": SixPlayerLayout.TWO_TRIOS}, 6
            yield spec, SHORT_STOCK, new_engine.resolve(spec).players_allowed[0]


class Translator:
    """Rebuilds the new engine's values (dataclasses, enums) as the old engine's classes."""

    def __init__(self, old: ModuleType):
        self.classes: dict[str, Any] = {}
        for name in ("model", "ruleset"):
            module = importlib.import_module(f"{old.__name__}.{name}")
            for attr, value in vars(module).items():
                if isinstance(value, type):
                    self.classes[attr] = value

    def __call__(self, value: Any) -> Any:
        if isinstance(value, enum.Enum):
            return self.classes[type(value).__name__][value.name]
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            cls = self.classes[type(value).__name__]
            return cls(
                **{
                    f.name: self(getattr(value, f.name))
                    for f in dataclasses.fields(value)
                    if f.init
                }
            )
        if isinstance(value, tuple):
            return tuple(self(v) for v in value)
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        return value


def plain(value: Any) -> Any:
    """A class-independent form of an answer: every field of every dataclass (compare=False
    ones included), enums by name, exceptions by type and problems."""
    if isinstance(value, enum.Enum):
        return (type(value).__name__, value.name)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            tuple((f.name, plain(getattr(value, f.name))) for f in dataclasses.fields(value)),
        )
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return sorted((str(k), plain(v)) for k, v in value.items())
    if isinstance(value, BaseException):
        return (
            "raised",
            type(value).__name__,
            str(value),
            plain(getattr(value, "problems", None)),
            getattr(value, "kind", None),
        )
    return value


class Differ:
    def __init__(self, old: ModuleType):
        self.old = old
        self.old_legal = importlib.import_module(f"{old.__name__}.legal")
        self.old_derived = importlib.import_module(f"{old.__name__}.derived")
        self.old_pile = importlib.import_module(f"{old.__name__}.pile")
        self.to_old = Translator(old)
        self.calls = 0
        self.differences: list[str] = []

    def same(self, what: str, new_call: Callable[[], Any], old_call: Callable[[], Any]) -> Any:
        """Both answers (or both exceptions), compared; returns the new engine's answer."""
        self.calls += 1
        try:
            new_answer: Any = new_call()
        except Exception as error:  # noqa: BLE001 - an exception is an answer here
            new_answer = error
        try:
            old_answer: Any = old_call()
        except Exception as error:  # noqa: BLE001
            old_answer = error
        if plain(new_answer) != plain(old_answer):
            self.differences.append(f"{what}:\n  new {new_answer!r}\n  old {old_answer!r}")
        return new_answer

    def position(self, s: nm.Snapshot, rng: random.Random) -> list[nm.Action]:
        """Compare every call on ``s``; returns the new engine's legal actions."""
        e, o, old_s = new_engine, self.old, self.to_old(s)
        legal = self.same(
            "legal_actions", lambda: e.legal_actions(s), lambda: o.legal_actions(old_s)
        )
        actions = legal[0] if isinstance(legal, tuple) else []
        other = rng.randrange(s.players)
        self.same(
            "legal_actions(seat)",
            lambda: e.legal_actions(s, other),
            lambda: o.legal_actions(old_s, other),
        )
        sampled = rng.sample(actions, min(len(actions), 12))
        for action in sampled + list(probes(s, rng)):
            self.action(s, old_s, action)
        self.same(
            "score", lambda: e.score(s, provisional=True), lambda: o.score(old_s, provisional=True)
        )
        self.same("check_snapshot", lambda: e.check_snapshot(s), lambda: o.check_snapshot(old_s))
        self.derived(s, old_s)
        self.meld_checks(s, old_s, rng)
        self.views(s, rng)
        return actions

    def action(self, s: nm.Snapshot, old_s: Any, action: nm.Action) -> None:
        e, o = new_engine, self.old
        old_action = self.to_old(action)
        self.same(
            f"validate {action}",
            lambda: e.validate(s, action),
            lambda: o.validate(old_s, old_action),
        )
        self.same(f"apply {action}", lambda: e.apply(s, action), lambda: o.apply(old_s, old_action))
        self.same(
            f"replay {action}",
            lambda: e.replay(s, [action, action]),
            lambda: o.replay(old_s, [old_action, old_action]),
        )

    def derived(self, s: nm.Snapshot, old_s: Any) -> None:
        from samba_adjudicator.engine import derived, vocabulary

        od = self.old_derived
        self.same(
            "pile_state", lambda: tuple(derived.pile_state(s)), lambda: tuple(od.pile_state(old_s))
        )
        self.same(
            "awaiting_seats", lambda: derived.awaiting_seats(s), lambda: od.awaiting_seats(old_s)
        )
        for k, side in enumerate(s.sides):
            old_side = old_s.sides[k]
            self.same(
                "initial_meld_requirement",
                partial(derived.initial_meld_requirement, s.ruleset, side),
                partial(od.initial_meld_requirement, old_s.ruleset, old_side),
            )
            for j, meld in enumerate(side.melds):
                old_meld = old_side.melds[j]
                self.same(
                    "meld_status",
                    partial(vocabulary.meld_status, meld),
                    self._old_meld_status(old_s.ruleset, old_meld),
                )
                self.same(
                    "meld_natural",
                    partial(vocabulary.is_natural, meld.cards),
                    self._old_meld_natural(old_meld),
                )

    def _old_meld_status(self, ruleset: Any, meld: Any) -> Callable[[], Any]:
        """The other engine's meld status: engine.vocabulary's, or before it existed,
        derived.meld_status(ruleset, meld)."""
        if hasattr(self.old_derived, "meld_status"):
            return partial(self.old_derived.meld_status, ruleset, meld)
        vocabulary = importlib.import_module(f"{self.old.__name__}.vocabulary")
        return partial(vocabulary.meld_status, meld)

    def _old_meld_natural(self, meld: Any) -> Callable[[], Any]:
        if hasattr(self.old_derived, "meld_natural"):
            return partial(self.old_derived.meld_natural, meld)
        vocabulary = importlib.import_module(f"{self.old.__name__}.vocabulary")
        return partial(vocabulary.is_natural, meld.cards)

    def meld_checks(self, s: nm.Snapshot, old_s: Any, rng: random.Random) -> None:
        e, o = new_engine, self.old
        seat = s.turn.seat
        hand = list(s.seats[seat].hand)
        if not hand:
            return
        cards = tuple(rng.sample(hand, rng.randint(1, min(5, len(hand)))))
        self.same(
            "check_meld content",
            lambda: e.check_meld(s.ruleset, cards),
            lambda: o.check_meld(old_s.ruleset, cards),
        )
        who = rng.randrange(s.players)
        self.same(
            "check_meld new",
            lambda: e.check_meld(s.ruleset, cards, s, who),
            lambda: o.check_meld(old_s.ruleset, cards, old_s, who),
        )
        for side in s.sides:
            for meld in side.melds:
                self.same(
                    "check_meld onto",
                    partial(e.check_meld, s.ruleset, cards, s, who, meld.id),
                    partial(o.check_meld, old_s.ruleset, cards, old_s, who, meld.id),
                )

    def views(self, s: nm.Snapshot, rng: random.Random) -> None:
        """A seat's view (hidden hands and stock): validate and apply on it."""
        e, o = new_engine, self.old
        viewer = rng.choice([None, *range(s.players)])
        view = self.same(
            "player_view",
            lambda: e.player_view(s, viewer),
            lambda: o.player_view(self.to_old(s), viewer),
        )
        if not isinstance(view, nm.Snapshot):
            return
        old_view = self.to_old(view)
        seat = s.turn.seat
        draws = [nm.DrawStock(seat), nm.DrawStock(seat, cards=tuple(s.stock[:2]))]
        for action in draws + list(probes(s, rng))[:6]:
            self.action(view, old_view, action)
        self.same(
            "legal_actions(view)",
            lambda: e.legal_actions(view, viewer),
            lambda: o.legal_actions(old_view, viewer),
        )


def probes(s: nm.Snapshot, rng: random.Random) -> Iterator[nm.Action]:
    """Actions mostly illegal here: wrong seats, cards not held, other sides' melds, …"""
    seat = s.turn.seat
    hand = list(s.seats[seat].hand)
    meld_ids = [m.id for side in s.sides for m in side.melds]
    other = rng.randrange(s.players)
    some = tuple(rng.sample(hand, rng.randint(1, min(4, len(hand))))) if hand else ()
    pack_card = rng.choice(("AS", "5H", "JK", "2C", "3S", "3D", "KD", "7C"))
    yield nm.DrawStock(seat)
    yield nm.DrawStock(other)
    yield nm.DrawStock(seat, expected_ply=s.ply + 1)
    yield nm.Discard(seat, pack_card)
    yield nm.Discard(other, hand[0] if hand else pack_card)
    yield nm.AskGoOut(seat)
    yield nm.AskGoOut(other)
    yield nm.AnswerGoOut(other, rng.random() < 0.5)
    if some:
        yield nm.MeldCards(seat, new_melds=(some,))
        yield nm.MeldCards(other, new_melds=(some,))
        yield nm.TakePile(seat, hand_cards=some)
        yield nm.TakePile(seat, hand_cards=some[:2], new_melds=(tuple(hand[-3:]),))
        yield nm.MeldCards(seat, new_melds=(some, tuple(hand[-3:])))
    for mid in meld_ids:
        if some:
            yield nm.MeldCards(seat, additions=(nm.Addition(mid, some[:2]),))
            yield nm.MeldCards(
                seat,
                additions=(
                    nm.Addition(mid, some[:1], rng.choice((None, nm.RunEnd.LOW, nm.RunEnd.HIGH))),
                ),
            )
        yield nm.TakePile(seat, meld_id=mid)
        yield nm.TakeTopCard(seat, mid)
        if hand:
            yield nm.SwapWild(seat, mid, rng.choice(hand), rng.choice(("2S", "JK", "2H")))
    yield nm.MeldCards(seat, additions=(nm.Addition("m999", some or (pack_card,)),))
    yield nm.Discard(s.players + 1, pack_card)


def play_deal(
    differ: Differ,
    spec: str,
    overrides: dict[str, Any] | None,
    players: int,
    seed: str,
    max_plies: int,
    rng: random.Random,
) -> int:
    """One deal played at random through the new engine; returns the positions compared."""
    rules = new_engine.resolve(spec, overrides)
    old_rules = differ.old.resolve(spec, differ.to_old(overrides) if overrides else None)
    s = differ.same(
        f"deal {spec} {players} {seed}",
        lambda: new_engine.deal(rules, players, seed, dealer=players - 1),
        lambda: differ.old.deal(old_rules, players, seed, dealer=players - 1),
    )
    positions = 0
    for _ in range(max_plies):
        positions += 1
        actions = differ.position(s, rng)
        if s.turn.phase is nm.Phase.OVER or not actions:
            break
        s = new_engine.apply(s, pick(actions, rng)).snapshot
        for variant in one_card_variants(s):
            positions += 1
            differ.position(variant, rng)
    return positions


def pick(actions: list[nm.Action], rng: random.Random) -> nm.Action:
    """Melds and takes often, asks now and then and "no" more often than "yes", so deals
    reach canastas, refusals, going out and the end of the stock."""
    asks = [a for a in actions if isinstance(a, nm.AskGoOut)]
    answers = [a for a in actions if isinstance(a, nm.AnswerGoOut)]
    melds = [a for a in actions if isinstance(a, (nm.MeldCards, nm.TakePile, nm.TakeTopCard))]
    if answers:
        return answers[1] if rng.random() < 0.7 and len(answers) > 1 else answers[0]
    if asks and rng.random() < 0.1:
        return asks[0]
    if melds and rng.random() < 0.6:
        return rng.choice(melds)
    return rng.choice(actions)


def timed(fn: Callable[[], Any], rounds: int = 7) -> float:
    """Median microseconds per call over ``rounds`` of about 0.1 s each."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - start > 0.02:
            break
        n *= 2
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n * 5):
            fn()
        samples.append((time.perf_counter() - start) / (n * 5) * 1e6)
    return sorted(samples)[len(samples) // 2]


def speed(differ: Differ) -> None:
    """The engine hot paths of `make bench` (bench/scenarios.py positions), old beside new,
    timed alternately in one process so a busy machine slows both alike."""
    from bench import scenarios

    e, o = new_engine, differ.old
    print(f"{'position / call':40} {'old µs':>9} {'new µs':>9} {'new/old':>8}")
    for name, make in (
        ("opening", scenarios.opening),
        ("midgame", scenarios.midgame),
        ("late (40+ cards)", scenarios.late),
    ):
        s = make()
        action = scenarios.typical_action(s)
        old_s, old_action = differ.to_old(s), differ.to_old(action)
        calls = (
            ("validate", partial(e.validate, s, action), partial(o.validate, old_s, old_action)),
            ("apply", partial(e.apply, s, action), partial(o.apply, old_s, old_action)),
            ("legal_actions", partial(e.legal_actions, s), partial(o.legal_actions, old_s)),
            (
                "score",
                partial(e.score, s, provisional=True),
                partial(o.score, old_s, provisional=True),
            ),
        )
        for call, new_call, old_call in calls:
            # alternate old and new; the least of each is the least disturbed
            old_us, new_us = float("inf"), float("inf")
            for _ in range(5):
                old_us = min(old_us, timed(old_call, rounds=3))
                new_us = min(new_us, timed(new_call, rounds=3))
            print(
                f"{name + ' ' + call:40} {old_us:9.1f} {new_us:9.1f} {new_us / old_us:8.2f}",
                flush=True,
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--old",
        type=Path,
        required=True,
        help="the other engine's folder (e.g. /tmp/old-engine/engine)",
    )
    parser.add_argument("--deals", type=int, default=3, help="deals per spec and player count")
    parser.add_argument("--plies", type=int, default=120, help="plies per deal at most")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument(
        "--every",
        type=int,
        default=1,
        help="play only every n-th profile, variation and player count "
        "(a shorter run; the offset moves with --seed)",
    )
    parser.add_argument(
        "--speed", action="store_true", help="time the hot paths of both engines instead"
    )
    args = parser.parse_args()
    differ = Differ(load_old(args.old.resolve()))
    if args.speed:
        speed(differ)
        return 0
    rng = random.Random(args.seed)
    deals = positions = 0
    started = time.perf_counter()
    for n, (spec, overrides, players) in enumerate(specs()):
        if (n + args.seed) % max(1, args.every):
            continue
        for k in range(args.deals):
            positions += play_deal(differ, spec, overrides, players, f"diff-{k}", args.plies, rng)
            deals += 1
        print(
            f"{spec:28} {players}p {'short' if overrides == SHORT_STOCK else '':5} "
            f"deals {deals:5} positions {positions:7} calls {differ.calls:9} "
            f"differences {len(differ.differences)}",
            flush=True,
        )
    print(
        f"\n{deals} deals, {positions} positions, {differ.calls} calls compared, "
        f"{len(differ.differences)} differences, {time.perf_counter() - started:.0f} s"
    )
    for text in differ.differences[:10]:
        print(text)
    return 1 if differ.differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
