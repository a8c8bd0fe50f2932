"""VerifyDeal: a deal checked against the seeds revealed after it
(docs/dealing.md#5-deals-players-can-verify). The deal may be its first snapshot or any later
one, full or a player's view (signed when signing is on, like any snapshot the service
reads); the check itself is the engine's (engine.deal_proof)."""

from __future__ import annotations

from samba_adjudicator import engine
from samba_adjudicator.engine.deal_seed import contribution_problems
from samba_adjudicator.engine.dealing import MAX_SEED_BYTES
from samba_adjudicator.engine.messages import problem

from ..base import pb
from ..codec import paths
from ..i18n.catalogs import word

DEAL = "deal"


def verify_deal(adj, r) -> pb.VerifyDealResponse:
    """``adj``: the Adjudicator (its snapshot loader reads ``deal``); ``r``: the
    ``Request``, its problems' texts in its language."""
    req, problems, lang = r.message, r.problems, r.lang
    if len(req.seed.encode("utf-8")) > MAX_SEED_BYTES:
        problems.append(
            problem(
                "seed", "OUT_OF_RANGE", "seed is at most {max} bytes of UTF-8", max=MAX_SEED_BYTES
            )
        )
    contributions = list(req.seed_contributions)
    problems.extend(contribution_problems(contributions, "seedContributions"))
    if not req.HasField(DEAL):
        paths.raise_if(problems)
    snap, _ = adj.snapshots.load(r, field=DEAL)
    found = engine.verify_deal(snap, req.seed, contributions)
    return pb.VerifyDealResponse(
        verified=not found,
        problems=[
            pb.VerifyDealProblem(
                field=p.field,
                reason=p.reason,
                description=word(lang, p.description, p.template, p.params),
            )
            for p in found
        ],
    )
