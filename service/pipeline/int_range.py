"""Numbers the service computes stay within their wire type (docs/service.md#limits).

The deal number, the ply and a side's match score travel as int32. A value the service
computes from a client's input (the next deal's number, the ply after an action, a match
score plus a deal's score) could pass 2**31 - 1 (or -2**31) and would wrap on the wire, so
such a request is refused with INVALID_ARGUMENT at the input field that leads there.
"""

from __future__ import annotations

from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Problem, ScoreReport, Snapshot

from ..base.errors import invalid_argument

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def fits(value: int) -> bool:
    return INT32_MIN <= value <= INT32_MAX


def score_problems(report: ScoreReport | None, field: str) -> list[Problem]:
    """A problem at ``field.sides[i].matchScore`` for each side whose match total leaves
    the int32 range."""
    if report is None:
        return []
    return [
        problem(
            f"{field}.sides[{i}].matchScore",
            "OUT_OF_RANGE",
            "matchScore {score} plus this deal's {deal} is {total}, outside {low}..{high}",
            score=s.match_total - s.deal_total,
            deal=s.deal_total,
            total=s.match_total,
            low=INT32_MIN,
            high=INT32_MAX,
        )
        for i, s in enumerate(report.sides)
        if not fits(s.match_total)
    ]


def check_played(
    before: Snapshot, after: Snapshot, report: ScoreReport | None, field: str = "snapshot"
) -> None:
    """After actions applied to ``before`` (at ``field``): the ply and the match totals."""
    problems = score_problems(report, field)
    if not fits(after.ply):
        problems.insert(
            0,
            problem(
                f"{field}.ply",
                "OUT_OF_RANGE",
                "ply {ply} leaves no room for {count} more actions: a ply is at most {high}",
                ply=before.ply,
                count=after.ply - before.ply,
                high=INT32_MAX,
            ),
        )
    if problems:
        raise invalid_argument(problems)


def check_next_deal(previous: Snapshot, report: ScoreReport, field: str = "previous") -> None:
    """The deal after ``previous``: its number and the match totals it carries."""
    problems = score_problems(report, field)
    if previous.deal_number >= INT32_MAX:
        problems.insert(
            0,
            problem(
                f"{field}.dealNumber",
                "OUT_OF_RANGE",
                "no deal can follow deal {number}: a deal number is at most {high}",
                number=previous.deal_number,
                high=INT32_MAX,
            ),
        )
    if problems:
        raise invalid_argument(problems)
