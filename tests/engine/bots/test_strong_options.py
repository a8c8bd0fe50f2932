"""STRONG's settings are one frozen value passed in (engine.bots.strong_options,
docs/bots.md#strong-options): a trial's value changes the call it is passed to, nothing
else, and engine.bots.strong keeps no option of its own to be changed behind it."""

from __future__ import annotations

import dataclasses

import pytest
from builders import basic_positions, mover

from samba_adjudicator.engine.bots import Level, strong, suggest
from samba_adjudicator.engine.bots.strong_options import STRONG, StrongOptions
from samba_adjudicator.engine.model import Phase


def test_the_level_s_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        STRONG.search_meld = not STRONG.search_meld  # type: ignore[misc]
    assert StrongOptions() == STRONG


def test_strong_keeps_no_module_constant_for_an_option():
    """Every option is a field of StrongOptions, none a constant of engine.bots.strong that a
    trial could set for every caller of the process."""
    left = [f.name.upper() for f in dataclasses.fields(StrongOptions)]
    assert [name for name in left if hasattr(strong, name)] == []


def test_a_trial_s_value_changes_only_the_call_it_is_passed_to():
    """The draw searched by default and, with ``search_draw`` off in a value passed to one
    call, BASIC's pick; the next call without it is searched again."""
    unsearched = dataclasses.replace(STRONG, search_draw=False)
    for s in basic_positions("classic", 2, "options-draw"):
        if s.turn.phase is not Phase.DRAW or s.ply < 10:
            continue
        seat = mover(s)
        searched = suggest(s, seat, Level.STRONG, "o", 1)
        if searched.reason.code != "SEARCHED":
            continue
        trial = suggest(s, seat, Level.STRONG, "o", 1, unsearched)
        assert trial.reason.code != "SEARCHED"
        assert suggest(s, seat, Level.STRONG, "o", 1) == searched
        return
    raise AssertionError("no searched draw")
