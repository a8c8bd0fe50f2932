"""Writes tests/deal_vectors.json (`make deal-vectors`): the one set of test vectors the three
checks of a deal read — the service's VerifyDeal (tests/test_deal_vectors.py, over the engine,
REST and gRPC), the Python client's `verify_deal` (the same test) and the TypeScript client's
`verifyDeal` (clients/typescript/test/dealCheck.test.ts) — so they agree by construction.

- ``deals``: seeded deals of every profile at its smallest and largest table (and one with
  ruleset overrides), each with the Deal request, the resolved ruleset Deal answers
  (``DealResponse.ruleset``: what a check with no server needs) and the actions BASIC played
  at every seat to the end. A reader replays them and checks every seat's and the
  spectator's view at every ply, and each forgery of ``forgeries`` on each of them.
- ``forgeries``: the single-field forgeries of a view, by name, and the problems each must
  bring (``{seat}``: the seat forged; ``{shown}``: every seat whose ``dealt`` the view
  shows, or ``deal.seats`` NOTHING_TO_CHECK when none is). ``sweep`` says which views a
  reader forges: every view of the first and final positions (the seed forgeries there
  only), and at each ply between the view of seat ``ply % (players + 1)`` (``players``: the
  spectator's).
- ``requests``: VerifyDeal requests given whole, with the service's answer recorded: an
  answer (``verified`` and each problem's field and reason) or a refusal (its status, reason
  and violations).

Run it again when the shuffle, the dealing, BASIC or the checks change, and review the diff.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from google.protobuf import json_format

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from builders import load_snapshot, mover  # noqa: E402

from samba_adjudicator import engine  # noqa: E402
from samba_adjudicator.engine.bots import basic  # noqa: E402
from samba_adjudicator.engine.bots.draws import choices  # noqa: E402
from samba_adjudicator.engine.deal_seed import commitment  # noqa: E402
from samba_adjudicator.engine.model import EndReason, Phase  # noqa: E402
from samba_adjudicator.engine.ruleset import PROFILES, resolve  # noqa: E402
from samba_adjudicator.service.base import pb  # noqa: E402
from samba_adjudicator.service.codec import actions, convert  # noqa: E402
from samba_adjudicator.service.pipeline.api import Adjudicator  # noqa: E402
from samba_adjudicator.service.pipeline.boundary import as_api_error  # noqa: E402

OUT = HERE / "deal_vectors.json"
CONTRIBUTIONS = ["ana-7f", "bo", "chidi-é", "dana", "eve-42", "femi"]
OVERRIDES = {"handSize": 11, "upcardBuriedIf": "BURY_WILD_OR_ANY_THREE",
             "redThrees": "REPLACE_AT_FIRST_TURN", "targetScore": 7000}  # fmt: skip

FORGERIES = {
    "commitment-other": {
        "change": "dealCommitment: the commitment of the seed followed by 'x'",
        "expect": [["deal.dealCommitment", "COMMITMENT_MISMATCH"]],
    },
    "commitment-removed": {
        "change": "dealCommitment: empty",
        "expect": [["deal.dealCommitment", "REQUIRED"]],
    },
    "dealer-next": {
        "change": "dealer: the next seat",
        "expect": [["{shown}", "NOT_THE_SHUFFLE"]],
    },
    "deal-number-next": {
        "change": "dealNumber: one more",
        "expect": [["{shown}", "NOT_THE_SHUFFLE"]],
    },
    "dealt-emptied": {
        "change": "each shown seat's dealt: emptied",
        "expect": [["deal.seats[{seat}].dealt", "NOT_THE_SHUFFLE"]],
    },
    "dealt-card-changed": {
        "change": "each shown seat's dealt: its first card another (AS, or KS for an AS)",
        "expect": [["deal.seats[{seat}].dealt", "NOT_THE_SHUFFLE"]],
    },
    "dealt-rotated": {
        "change": "each shown seat's dealt: its first card moved last (when that changes it)",
        "expect": [["deal.seats[{seat}].dealt", "NOT_THE_SHUFFLE"]],
    },
    "hidden-cleared": {
        "change": "each seat of no card the view hides: handHidden false (its empty dealt "
        "becomes a claim)",
        "expect": [["deal.seats[{seat}].dealt", "NOT_THE_SHUFFLE"]],
    },
    "seed-other": {
        "change": "the revealed seed followed by 'x'",
        "expect": [["deal.dealCommitment", "COMMITMENT_MISMATCH"], ["{shown}", "NOT_THE_SHUFFLE"]],
    },
    "contribution-changed": {
        "change": "the first contribution followed by 'x'",
        "expect": [["{shown}", "NOT_THE_SHUFFLE"]],
    },
    "contributions-reversed": {
        "change": "the contributions in reverse order",
        "expect": [["{shown}", "NOT_THE_SHUFFLE"]],
    },
    "contribution-dropped": {
        "change": "the last contribution left out",
        "expect": [["{shown}", "NOT_THE_SHUFFLE"]],
    },
}


def _json(msg) -> dict:
    return json_format.MessageToDict(msg)


def _tables() -> list[tuple[str, int]]:
    out = []
    for profile in PROFILES:
        allowed = resolve(profile).players_allowed
        out += [(profile, n) for n in sorted({min(allowed), max(allowed)})]
    return out


def _play(adj: Adjudicator, request: dict) -> tuple[dict, list[dict], engine.Snapshot]:
    """The Deal answer's ruleset, BASIC's actions to the end, the final snapshot."""
    answer = adj.call("Deal", json_format.ParseDict(request, pb.DealRequest()))
    s = load_snapshot(answer.snapshot)
    played = []
    while s.turn.phase is not Phase.OVER:
        seat = mover(s)
        action = basic.choose(s, seat, choices(s, seat)).action
        played.append(_json(actions.action_to_proto(action)))
        s = engine.apply(s, action).snapshot
    return _json(answer.ruleset), played, s


def _deals(adj: Adjudicator) -> tuple[list[dict], dict[str, engine.Snapshot]]:
    deals, finals = [], {}
    tables = [(p, n, None) for p, n in _tables()] + [("classic", 4, OVERRIDES)]
    for k, (profile, players, overrides) in enumerate(tables):
        ref = {"profile": profile, **({"overrides": overrides} if overrides else {})}
        name = f"{profile}-{players}" + ("-overrides" if overrides else "")
        request = {
            "ruleset": ref,
            "players": players,
            "seed": f"vectors/{name}",
            "seedContributions": CONTRIBUTIONS[:players],
            "dealer": players - 1,
            "dealNumber": 1 + k % 2,
        }
        ruleset, played, final = _play(adj, request)
        deals.append({"name": name, "deal": request, "ruleset": ruleset, "actions": played})
        finals[name] = final
    return deals, finals


def _answer(adj: Adjudicator, request: dict) -> dict:
    try:
        msg = adj.call("VerifyDeal", json_format.ParseDict(request, pb.VerifyDealRequest()))
    except Exception as exc:  # noqa: BLE001 - every refusal, as the transports answer it
        e = as_api_error(exc, "VerifyDeal")
        return {
            "refused": {
                "status": e.code,
                "reason": e.reason,
                "violations": [[p.field, p.reason] for p in e.field_violations],
            }
        }
    return {"verified": msg.verified, "problems": [[p.field, p.reason] for p in msg.problems]}


def _snapshot(snap) -> dict:
    return _json(convert.snapshot_to_proto(snap))


def _requests(adj: Adjudicator, deals: list[dict], finals: dict) -> list[dict]:
    plain = next(d for d in deals if d["name"] == "classic-2")
    final = finals["classic-2"]
    assert final.result.reason is EndReason.WENT_OUT, "pick a deal that goes out"
    out_seat = final.result.seat
    loser = engine.player_view(final, 1 - out_seat)
    seed, given = plain["deal"]["seed"], plain["deal"]["seedContributions"]
    first = _json(adj.call("Deal", json_format.ParseDict(plain["deal"], pb.DealRequest())).snapshot)
    good = {"deal": first, "seed": seed, "seedContributions": given}

    def seat_edit(snap: dict, seat: int, **fields) -> dict:
        seats = [dict(s) for s in snap["seats"]]
        seats[seat].update(fields)
        for key in [k for k, v in seats[seat].items() if v in ([], False)]:
            del seats[seat][key]
        return {**snap, "seats": seats}

    unhidden = seat_edit(_snapshot(loser), out_seat, handHidden=False)
    emptied = seat_edit(_snapshot(final), out_seat, dealt=[])
    cases = {
        "the first snapshot": good,
        "the loser's final view": {**good, "deal": _snapshot(loser)},
        "the final spectator view": {**good, "deal": _snapshot(engine.player_view(final, None))},
        "65 contributions": {**good, "seedContributions": [*given, *["c"] * 63]},
        "an empty contribution": {**good, "seedContributions": [given[0], ""]},
        "a contribution of 130 bytes": {**good, "seedContributions": ["é" * 65]},
        "a contribution of 128 bytes": {**good, "seedContributions": ["é" * 64]},
        "no seed": {**good, "seed": ""},
        "a seed of 129 bytes": {**good, "seed": "s" * 129},
        "no seed and an empty contribution": {**good, "seed": "", "seedContributions": [""]},
        "a commitment not hex": {**good, "deal": {**first, "dealCommitment": "XYZ"}},
        "a commitment in capitals": {
            **good,
            "deal": {**first, "dealCommitment": commitment(seed).upper()},
        },
        "handHidden on a listed hand": {
            **good,
            "deal": seat_edit(first, 0, handHidden=True),
        },
        "the loser's view with the seat that went out not hidden": {**good, "deal": unhidden},
        "a forged empty dealt on the full final snapshot": {**good, "deal": emptied},
        "a pinned version another": {
            **good,
            "deal": {**first, "ruleset": {**first["ruleset"], "version": "0.other"}},
        },
    }
    return [{"name": k, "request": v, **_answer(adj, v)} for k, v in cases.items()]


def _written(doc: dict) -> str:
    """Indented JSON with each action on one line, so a change reads as a short diff."""
    compact = {}
    for deal in doc["deals"]:
        for k, action in enumerate(deal["actions"]):
            mark = f"@{deal['name']}/{k}@"
            compact[json.dumps(mark)] = json.dumps(action, separators=(",", ":"))
            deal["actions"][k] = mark
    text = json.dumps(doc, indent=1, ensure_ascii=False)
    for mark, action in compact.items():
        text = text.replace(mark, action, 1)
    return text


def main() -> None:
    adj = Adjudicator()
    deals, finals = _deals(adj)
    doc = {
        "about": __doc__.split("\n\n")[0].replace("\n", " "),
        "sweep": "every view of the first and final positions, the seed forgeries there only; "
        "at each ply between, the view of seat ply % (players + 1), the spectator's at players",
        "forgeries": FORGERIES,
        "deals": deals,
        "requests": _requests(adj, deals, finals),
    }
    OUT.write_text(_written(doc) + "\n")
    print(f"{OUT}: {len(deals)} deals, {sum(len(d['actions']) for d in deals)} actions")


if __name__ == "__main__":
    main()
