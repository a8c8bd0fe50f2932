"""The rules pinned as text a reviewer reads: one seeded deal per profile, played by the
engine alone and written ply by ply (tests/playthroughs/<profile>.txt).

Each ply says which seats the deal awaits, how many legal actions they have and the first
of them, the action chosen (by a seeded random choice among the legal actions, melds and
takes preferred so that tables fill), the events as each seat and a spectator saw them, and
at the end the itemised score. tests/test_playthroughs.py compares the files with a fresh
play, so a change of the rules shows as a readable diff of these files; after a deliberate
change, `make playthroughs` writes them again and the diff goes into review with the code.

    .venv/bin/python tests/playthroughs.py [--check]
"""

from __future__ import annotations

import dataclasses
import enum
import random
import sys
from collections.abc import Iterator
from pathlib import Path

from samba_adjudicator.engine import apply, deal, events_seen_by, legal_actions, resolve, score
from samba_adjudicator.engine.derived import awaiting_seats
from samba_adjudicator.engine.model import Phase
from samba_adjudicator.engine.ruleset import PROFILES

FOLDER = Path(__file__).resolve().parent / "playthroughs"
#: Legal actions written out at each ply (the count is always written).
FIRST_ACTIONS = 5
#: Plies at most: a deal ends long before (stock exhausted), this only bounds a bug.
MAX_PLIES = 2000


def table_size(profile: str) -> int:
    allowed = resolve(profile).players_allowed
    return 4 if 4 in allowed else min(allowed)


def said(value: object) -> str:
    """An engine value in a few words: a dataclass by its non-default fields, cards by their
    codes."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = []
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if f.name == "expected_ply" or item == f.default or item == ():
                continue
            parts.append(f"{f.name}={said(item)}")
        return f"{type(value).__name__}({' '.join(parts)})"
    if isinstance(value, tuple):
        if all(isinstance(v, str) for v in value):
            return "[" + " ".join(value) + "]"
        return "[" + ", ".join(said(v) for v in value) + "]"
    if isinstance(value, enum.Enum):
        return value.name
    return str(value)


def _event_lines(events: tuple, players: int) -> Iterator[str]:
    """The events as each seat saw them; viewers who saw the same are written together."""
    seen: dict[tuple, list[str]] = {}
    for viewer in [*range(players), None]:
        key = tuple(
            said(e) + (f" ({count} cards)" if not e.cards and count else "")
            for e, count in events_seen_by(events, viewer)
        )
        seen.setdefault(key, []).append("spectator" if viewer is None else f"seat {viewer}")
    for key, viewers in seen.items():
        who = "everyone" if len(seen) == 1 else ", ".join(viewers)
        for line in key:
            yield f"    {who}: {line}"


def playthrough(profile: str) -> str:
    """The text of ``profile``'s seeded deal."""
    players = table_size(profile)
    rng = random.Random(f"playthrough-{profile}")
    snap = deal(resolve(profile), players, f"playthrough-{profile}")
    lines = [
        f"# {profile}, {players} players, seed playthrough-{profile}",
        f"# regenerate: make playthroughs (tests/playthroughs.py); version {snap.ruleset.version}",
        "dealt: " + "; ".join(f"seat {s.seat} {said(s.hand)}" for s in snap.seats),
        f"pile: {said(snap.discard_pile)}  stock: {len(snap.stock)} cards",
    ]
    for _ in range(MAX_PLIES):
        if snap.turn.phase is Phase.OVER:
            break
        actions, complete = legal_actions(snap)
        shown = ", ".join(said(a) for a in actions[:FIRST_ACTIONS])
        more = "" if len(actions) <= FIRST_ACTIONS else ", …"
        lines.append(
            f"ply {snap.ply} {snap.turn.phase.name} awaiting {list(awaiting_seats(snap))}: "
            f"{len(actions)} legal{'' if complete else ' (incomplete)'}: {shown}{more}"
        )
        melds = [a for a in actions if type(a).__name__ in ("MeldCards", "TakePile")]
        choice = rng.choice(melds if melds and rng.random() < 0.7 else actions)
        outcome = apply(snap, choice)
        assert outcome.legal, (profile, choice, outcome.violations)
        lines.append(f"  -> {said(choice)}")
        lines.extend(_event_lines(outcome.events, players))
        snap = outcome.snapshot
    result = snap.result
    lines.append(f"over: {said(result)}")
    for side in score(snap).sides:
        lines.append(f"score {said(side)}")
    return "\n".join(lines) + "\n"


def path_of(profile: str) -> Path:
    return FOLDER / f"{profile}.txt"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    FOLDER.mkdir(exist_ok=True)
    for profile in PROFILES:
        text = playthrough(profile)
        path = path_of(profile)
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.write_text(text)
            print(f"wrote {path} ({text.count(chr(10))} lines)")
    if stale:
        print("stale (make playthroughs):", *stale, sep="\n  ")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
