"""The ListLegalActions lists kept for their next pages are stored compactly and bounded by
bytes, not by count (issue 20, case 1: sixteen kept 150-card lists held 12 MB each)."""

from __future__ import annotations

from builders import load_snapshot
from google.protobuf import json_format
from huge_positions import huge_hand

from samba_adjudicator import engine
from samba_adjudicator.engine.action_order import canonical
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec.actions import action_to_proto
from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.pipeline.kept_lists import KeptList, KeptLists


def _request(size: int, page_size: int = 7) -> pb.ListLegalActionsRequest:
    return json_format.ParseDict(
        {"snapshot": huge_hand(size), "pageSize": page_size}, pb.ListLegalActionsRequest()
    )


def test_kept_pages_are_the_listed_actions_in_canonical_order():
    adj = Adjudicator()
    request = _request(40)
    snap = load_snapshot(request.snapshot)
    actions, _ = engine.legal_actions(snap, None)
    expected = [action_to_proto(canonical(a)) for a in actions]
    got, token = [], ""
    while True:
        request.page_token = token
        page = adj.call("ListLegalActions", request)
        got.extend(page.actions)
        token = page.next_page_token
        if not token:
            break
    assert got == expected and len(got) > 7


def test_kept_lists_are_compact():
    request = _request(60)
    snap = load_snapshot(request.snapshot)
    actions, complete = engine.legal_actions(snap, None)
    kept = KeptList.of(actions, complete)
    assert len(kept) == len(actions) > 1000
    # serialized actions: tens of bytes each (the engine values took hundreds)
    assert kept.nbytes < 100 * len(actions)


def test_kept_lists_stay_within_their_byte_budget():
    sizes = {}
    for cards in (30, 34, 38, 42, 46):
        snap = load_snapshot(_request(cards).snapshot)
        sizes[cards] = KeptList.of(*engine.legal_actions(snap, None)).nbytes
    budget = sizes[46] + sizes[42]  # room for the two largest, not for all five
    adj = Adjudicator(lists_kept_bytes=budget)
    for cards in sizes:
        adj.call("ListLegalActions", _request(cards))
        assert adj._listed.nbytes <= budget
    assert 1 <= len(adj._listed) < len(sizes)
    # a list larger than the whole budget is not kept
    lists = KeptLists(budget=100)
    lists.put("k", KeptList.of(*engine.legal_actions(snap, None)))
    assert len(lists) == 0 and lists.nbytes == 0
