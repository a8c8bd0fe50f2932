"""One transport-neutral implementation of every RPC of ``samba.v1.Adjudicator``.

Every transport goes through ``service.pipeline.runtime.Runtime.answer``, the error
boundary, which reads the request once (``service.pipeline.decoding.read``: a ``Request``)
and hands it to ``Adjudicator.answer``; in process::

    adj = Adjudicator(signer=Signer.parse(keys))  # or Adjudicator.from_settings(settings)
    response = adj.call("Deal", pb.DealRequest(players=4))

The handlers raise ``ApiError`` for the service's own refusals and let engine
``InvalidInput`` / ``RulesetError`` (and, for a bug, anything) through to
``service.pipeline.boundary``. Every problem of a request is reported together. Snapshots
are loaded by ``service.pipeline.loading`` (one pipeline, one cache).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from samba_adjudicator import engine
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.action_order import canonical
from samba_adjudicator.engine.deal_seed import contribution_problems
from samba_adjudicator.engine.dealing import MAX_SEED_BYTES
from samba_adjudicator.engine.derived import awaiting_seats
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Event, Problem, RulesetRef, Snapshot

from ..base import pb
from ..base.errors import (
    Problems,
    echo,
    invalid_argument,
    too_many_items,
)
from ..codec import answers, jsonio, paths, required, rulesets, snapshot_bytes
from ..codec.actions import action_to_proto
from ..codec.signing import Signer
from ..i18n.catalogs import word
from ..i18n.negotiation import DEFAULT
from ..ops import page_tokens
from . import computer, int_range, reveal, views
from .call import Call
from .decoding import Request, read, request_type
from .kept_lists import LISTS_KEPT_BYTES, KeptList, KeptLists
from .loading import SNAPSHOT_CACHE_SIZE, Answer, SnapshotLoader, pin_version

if TYPE_CHECKING:
    from ..ops.config import Settings

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000

#: ListLegalActionsRequest.snapshot: its lowest field number, so first in its encoding
_LIST_SNAPSHOT = pb.ListLegalActionsRequest.DESCRIPTOR.fields_by_name["snapshot"].number
assert min(f.number for f in pb.ListLegalActionsRequest.DESCRIPTOR.fields) == _LIST_SNAPSHOT


class Adjudicator:
    """Every RPC as a method taking the request message and returning the response."""

    def __init__(
        self,
        signer: Signer | None = None,
        *,
        max_replay_actions: int = jsonio.MAX_REPLAY_ACTIONS,
        cache_size: int = SNAPSHOT_CACHE_SIZE,
        page_token_key: bytes | None = None,
        lists_kept_bytes: int = LISTS_KEPT_BYTES,
    ) -> None:
        self.signer = signer
        self.page_tokens = page_tokens.PageTokens(
            page_token_key or page_tokens.key_from("", signer)
        )
        # ListLegalActions lists by page binding (the request without its page fields)
        self._listed = KeptLists(lists_kept_bytes)
        self.max_replay_actions = max_replay_actions
        self.snapshots = SnapshotLoader(signer, cache_size)

    @classmethod
    def from_settings(cls, settings: Settings) -> Adjudicator:
        """The adjudicator the settings describe: the one place it is assembled (servers,
        their workers and the CLI); it reads the keys from the settings, never from the
        environment."""
        signer = Signer.parse(settings.snapshot_keys)
        return cls(
            signer,
            cache_size=settings.snapshot_cache_size,
            page_token_key=page_tokens.key_from(settings.page_token_key, signer),
        )

    # -- entry points --------------------------------------------------------------------
    def answer(self, r: Request) -> Answer:
        """The answer to a request read by ``service.pipeline.decoding.read``."""
        return Answer(METHODS[r.method][1](self, r), r, self.snapshots)

    def call(
        self, method: str, request: Message, problems: Iterable[Problem] = (), lang: str = DEFAULT
    ) -> Message:
        """``answer`` for a message built in process (``problems``: those found building it;
        ``lang``: the answer's language)."""
        return self.answer(read(Call(method, request, lang=lang), self.snapshots, problems)).whole()

    @staticmethod
    def _ruleset(msg: pb.RulesetRef, problems: Problems) -> tuple[er.Ruleset, RulesetRef]:
        """A request's ``ruleset`` (resolved, or every problem raised; its version pin
        checked) and the reference as given."""
        rules, ref = rulesets.ruleset_ref_from_proto(msg, "ruleset", problems)
        paths.raise_if(problems)
        assert rules is not None  # resolving failed only with a problem reported
        pin_version(ref.version, rules, "ruleset.version")
        return rules, ref

    @staticmethod
    def _seat(seat: int, snap: Snapshot, field: str) -> None:
        if (off := views.off_the_table(seat, snap, field)) is not None:
            raise invalid_argument([off])

    # -- RPCs ------------------------------------------------------------------------------
    def list_rulesets(self, r: Request) -> pb.ListRulesetsResponse:
        paths.raise_if(r.problems)
        return pb.ListRulesetsResponse(
            rulesets=[rulesets.ruleset_to_proto(p, r.lang) for p in engine.profile_rulesets()]
        )

    def get_ruleset(self, r: Request) -> pb.Ruleset:
        req = r.message
        paths.raise_if(r.problems)
        try:
            rules = er.resolve(req.profile, {}, path="profile")
        except er.RulesetError as e:
            raise rulesets.unknown_profile(req.profile, e) from None
        return rulesets.ruleset_to_proto(rules, r.lang, with_descriptions=True)

    def deal(self, r: Request) -> pb.DealResponse:
        req, problems = r.message, r.problems
        if req.HasField("previous"):
            previous, _ = self.snapshots.load(r, allow_view=False, field="previous")
            rules, ref = previous.ruleset, previous.ruleset_ref
            carried = views.carried_from(previous, req)
            players = len(previous.seats)
        else:
            if not req.players:  # required unless previous decides it
                missing = problem("players", "REQUIRED", "{field} is required", field="players")
                problems.extend(required.unexplained(problems, [missing]))
            rules, ref = self._ruleset(req.ruleset, problems)
            carried = views.carried_raw(req, rules, signed=self.signer is not None)
            players = req.players
        snap = engine.deal(
            rules,
            players,
            req.seed,
            carried.dealer,
            carried.deal_number,
            carried.match_scores,
            ref,
            contributions=tuple(req.seed_contributions),
        )
        resp = pb.DealResponse(ruleset=rulesets.ruleset_to_proto(rules, r.lang))
        self.snapshots.answer(r, resp, snap, remember=True)
        self._extras(r, resp, snap, ())
        return resp

    def _extras(self, r: Request, resp, snap: Snapshot, events: Sequence[Event]) -> None:
        """The answer's views and next page, as the request asks (service.pipeline.views)."""
        req = r.message
        views.check_view_seats(req, snap)
        if req.include_views:
            r.rendered.extend(views.seat_views(self.snapshots, resp, snap, events, req.view_seats))
        awaiting = awaiting_seats(snap)
        if req.include_legal_actions and awaiting:
            seat = awaiting[0]
            binding = self._page_binding(pb.ListLegalActionsRequest(seat=seat), snap)
            page = self._page(snap, seat, binding, 0, DEFAULT_PAGE_SIZE)
            resp.next_actions.CopyFrom(
                pb.NextActions(
                    seat=seat,
                    actions=page.actions,
                    next_page_token=page.next_page_token,
                    total_size=page.total_size,
                )
            )

    def check_meld(self, r: Request) -> pb.CheckMeldResponse:
        req, problems = r.message, r.problems
        cards = paths.cards(req.cards, "cards", problems)
        if r.carries_snapshot:
            snap, _ = self.snapshots.load(r)
            self._seat(req.seat, snap, "seat")
            if req.meld_id and snap.find_meld(req.meld_id) is None:
                raise invalid_argument(
                    [
                        problem(
                            "meldId",
                            "UNKNOWN_MELD_ID",
                            "no meld has id {meld}",
                            meld=echo(req.meld_id),
                        )
                    ]
                )
            check = engine.check_meld(snap.ruleset, cards, snap, req.seat, req.meld_id or None)
        else:
            if req.meld_id:
                problems.append(
                    Problem("snapshot", "REQUIRED", "adding to a meld (meldId) needs the snapshot")
                )
            check = engine.check_meld(self._ruleset(req.ruleset, problems)[0], cards)
        return answers.meld_check_to_proto(check, r.lang)

    def validate_action(self, r: Request) -> pb.ValidateActionResponse:
        snap, (action,) = self.snapshots.load(r, actions=((r.message.action, "action"),))
        lang = r.lang
        violations = [answers.violation_to_proto(v, lang) for v in engine.validate(snap, action)]
        return pb.ValidateActionResponse(legal=not violations, violations=violations)

    def apply_action(self, r: Request) -> pb.ApplyActionResponse:
        req, problems, lang = r.message, r.problems, r.lang
        problems.extend(computer.request_problems(req, problems))  # a ProblemList: bounded
        snap, actions = self.snapshots.load(
            r,
            actions=((req.action, "action"),) if req.HasField("action") else (),
            allow_view=False,
        )
        views.check_view_seats(req, snap)
        chosen = computer.choose(snap, req.computer, lang) if req.HasField("computer") else None
        out = engine.apply(snap, chosen[0] if chosen is not None else actions[0])
        int_range.check_played(snap, out.snapshot, out.score)
        resp = pb.ApplyActionResponse(
            legal=out.legal,
            violations=[answers.violation_to_proto(v, lang) for v in out.violations],
            events=[answers.event_to_proto(e) for e in out.events],
        )
        self.snapshots.answer(r, resp, out.snapshot, remember=True)
        if out.score is not None:
            resp.score.CopyFrom(answers.score_to_proto(out.score))
        if chosen is not None:
            resp.chosen.CopyFrom(chosen[1])
        self._extras(r, resp, out.snapshot, out.events)
        return resp

    def list_legal_actions(self, r: Request) -> pb.ListLegalActionsResponse:
        req = r.message
        if req.page_size < 0:
            r.problems.append(Problem("pageSize", "OUT_OF_RANGE", "pageSize must not be negative"))
        snap, _ = self.snapshots.load(r)
        seat = req.seat if req.HasField("seat") else None
        if seat is not None:
            self._seat(seat, snap, "seat")
        size = min(req.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        binding = self._page_binding(req, snap)
        offset = self.page_tokens.read(req.page_token, binding) if req.page_token else 0
        return self._page(snap, seat, binding, offset, size)

    def _page(
        self, snap: Snapshot, seat: int | None, binding: str, offset: int, size: int
    ) -> pb.ListLegalActionsResponse:
        """The page at ``offset`` of the list of ``seat`` (None: every awaited seat)."""
        end = offset + size
        kept = self._listed.get(binding)
        if kept is None:
            actions, complete = engine.legal_actions(snap, seat)
            if offset == 0 and end >= len(actions):  # one page: nothing to keep
                return pb.ListLegalActionsResponse(
                    # card lists print in canonical order (docs/api.md#methods)
                    actions=[action_to_proto(canonical(a)) for a in actions],
                    total_size=len(actions),
                    complete=complete,
                )
            # one list per request, whichever page is asked: a client paging through a
            # long list must not have it computed again for every page
            kept = KeptList.of(actions, complete)
            self._listed.put(binding, kept)
        total = len(kept)
        if offset > total:
            raise page_tokens.mismatch()
        return pb.ListLegalActionsResponse(
            actions=kept.page(offset, end),  # kept in canonical order
            total_size=total,
            next_page_token=self.page_tokens.issue(end, binding) if end < total else "",
            complete=kept.complete,
        )

    def _page_binding(self, req: pb.ListLegalActionsRequest, snap: Snapshot) -> str:
        """Binds a page token to the request without its page fields, and to the served
        ruleset version. The snapshot enters as the service renders it (the same whichever
        transport and encoding brought it, and whether or not the request message still
        holds it): the bytes of the request with that rendering, written straight (the
        snapshot is field 1, first in the deterministic encoding; tests/test_page_tokens.py
        holds them to the message's own)."""
        rest = pb.ListLegalActionsRequest(seat=req.seat) if req.HasField("seat") else None
        request = snapshot_bytes.encode_as_field(_LIST_SNAPSHOT, snap)
        if rest is not None:
            request += rest.SerializeToString(deterministic=True)
        return self.page_tokens.binding(request, snap.ruleset.version)

    def score_deal(self, r: Request) -> pb.ScoreDealResponse:
        snap, _ = self.snapshots.load(r, allow_view=False)
        report = engine.score(snap, r.message.provisional)
        int_range.check_played(snap, snap, report)
        return answers.score_to_proto(report)

    def get_player_view(self, r: Request) -> pb.GetPlayerViewResponse:
        req = r.message
        revealing = req.reveal != pb.GetPlayerViewRequest.REVEAL_UNSPECIFIED
        snap, _ = self.snapshots.load(r, allow_view=not revealing)
        seat = req.seat if req.HasField("seat") else None
        if seat is not None:
            self._seat(seat, snap, "seat")
        if revealing:  # for display: not signed (service/pipeline/reveal.py)
            resp = pb.GetPlayerViewResponse()
            self.snapshots.answer(
                r, resp, reveal.revealed_view(snap, seat, req.reveal), signed=False
            )
        else:
            resp = pb.GetPlayerViewResponse()
            self.snapshots.answer(r, resp, engine.player_view(snap, seat))
        if seat is not None:
            resp.viewer_seat = seat
        return resp

    def replay_deal(self, r: Request) -> pb.ReplayDealResponse:
        req, lang = r.message, r.lang
        if len(req.actions) > self.max_replay_actions:
            raise too_many_items("ReplayDeal", "actions", self.max_replay_actions, len(req.actions))
        snap, actions = self.snapshots.load(
            r,
            allow_view=False,
            check_meld_ids=False,
            actions=tuple((a, f"actions[{i}]") for i, a in enumerate(req.actions)),
        )
        results, last, first_illegal, score = engine.replay(snap, actions)
        int_range.check_played(snap, last, score)
        resp = pb.ReplayDealResponse()
        self.snapshots.answer(r, resp, last, remember=True)
        for i, (legal, violations, events) in enumerate(results):
            item = resp.results.add(
                legal=legal,
                violations=[answers.violation_to_proto(v, lang) for v in violations],
                events=[answers.event_to_proto(e) for e in events],
            )
            for v in item.violations:  # paths relative to this request: actions[i]…
                if v.field == "action" or v.field.startswith(("action.", "action[")):
                    v.field = f"actions[{i}]" + v.field[len("action") :]
        if first_illegal is not None:
            resp.first_illegal_index = first_illegal
        if score is not None:
            resp.score.CopyFrom(answers.score_to_proto(score))
        # the events that led to ``last``: the first illegal action's are not among them
        self._extras(r, resp, last, [e for ok, _, events in results if ok for e in events])
        return resp

    def verify_deal(self, r: Request) -> pb.VerifyDealResponse:
        """A deal checked against the seeds revealed after it
        (docs/dealing.md#5-deals-players-can-verify): its first snapshot or any later one, full
        or a player's view (signed when signing is on); the check is the engine's."""
        req, problems, lang = r.message, r.problems, r.lang
        if len(req.seed.encode("utf-8")) > MAX_SEED_BYTES:
            problems.append(
                problem(
                    "seed",
                    "OUT_OF_RANGE",
                    "seed is at most {max} bytes of UTF-8",
                    max=MAX_SEED_BYTES,
                )
            )
        contributions = list(req.seed_contributions)
        problems.extend(contribution_problems(contributions, "seedContributions"))
        if not req.HasField("deal"):
            paths.raise_if(problems)
        snap, _ = self.snapshots.load(r, field="deal")
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

    def suggest_action(self, r: Request) -> pb.SuggestActionResponse:
        req, problems = r.message, r.problems
        if problems and req.budget_ms < 0:  # else the engine reports it with the seat's
            problems.append(Problem("budgetMs", "OUT_OF_RANGE", "budgetMs must not be negative"))
        snap, _ = self.snapshots.load(r)
        _, chosen = computer.suggestion(snap, req.seat, req.level, req.seed, req.budget_ms, r.lang)
        return pb.SuggestActionResponse(action=chosen.action, reason=chosen.reason)


def kebab(method: str) -> str:
    """``ListLegalActions`` -> ``list-legal-actions`` (CLI subcommands)."""
    return "".join("-" + c.lower() if c.isupper() else c for c in method).lstrip("-")


#: RPC name -> (request message type, handler: the Adjudicator method of its snake_case name)
METHODS: dict[str, tuple[type[Message], Callable[..., Message]]] = {
    m.name: (request_type(m.name), getattr(Adjudicator, kebab(m.name).replace("-", "_")))
    for m in pb.SERVICE.methods
}
