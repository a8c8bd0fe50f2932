"""One transport-neutral implementation of every RPC of ``samba.v1.Adjudicator``.

Usage (every transport goes through ``service.pipeline.runtime.Runtime.answer``, the error
boundary, which decodes the request and then calls)::

    adj = Adjudicator(signer=Signer.from_env())
    response = adj.call("Deal", request)                 # gRPC: binary request message
    response = adj.call("Deal", msg, problems, source)   # REST/CLI: JSON structural problems

``call`` returns the response message; it raises ``ApiError`` for the service's own
refusals and lets engine ``InvalidInput`` / ``RulesetError`` (and, for a bug, anything)
through to ``service.pipeline.boundary``. The required-field check (descriptor-driven) runs on every
request and every problem of a request is reported together. Snapshots are loaded by
``service.pipeline.loading`` (one pipeline, one cache).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from google.protobuf.message import Message

from samba_adjudicator import engine
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.action_order import canonical
from samba_adjudicator.engine.derived import awaiting_seats
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Event, Problem, RulesetRef, Snapshot

from ..base import page_tokens, pb
from ..base.errors import (
    Problems,
    api_error,
    echo,
    invalid_argument,
    too_many_items,
)
from ..base.signing import Signer
from ..codec import answers, convert, jsonio, paths, required, rulesets
from ..codec.actions import action_to_proto
from ..i18n.negotiation import DEFAULT
from . import computer, int_range, reveal, verify, views
from .kept_lists import LISTS_KEPT_BYTES, KeptList, KeptLists
from .loading import (
    SNAPSHOT,
    SNAPSHOT_CACHE_SIZE,
    SnapshotLoader,
    SnapshotSource,
    pin_version,
)

MAX_REPLAY_ACTIONS = 2000
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
# JSON requests are refused before their actions are read one by one (a megabyte holds
# forty thousand of them)
jsonio.ITEM_LIMITS["samba.v1.ReplayDealRequest"] = {"actions": ("ReplayDeal", MAX_REPLAY_ACTIONS)}

Handler = Callable[..., Message]
#: How the transport received a request's snapshot (None: it is in the request).
Source = SnapshotSource | None


def _handler(fn: Handler) -> Handler:
    """Run the required-field check first: its problems join ``problems``. A snapshot the
    transport did not parse, because it was loaded before, is left out; a new one is left
    to its read, which finds its missing fields where this check would have put them."""

    @functools.wraps(fn)
    def wrapper(self: Adjudicator, req: Message, problems, source: Source, lang: str) -> Message:
        if source is not None and source.loaded is not None:
            problems = required.with_required(req, problems or (), skip=(SNAPSHOT,))
        elif source is None or not req.HasField(SNAPSHOT):
            problems = required.with_required(req, problems or ())
        else:  # a new snapshot: the read finds its missing fields (SnapshotLoader.load)
            problems, held = required.with_required_held(req, problems or (), SNAPSHOT)
            source = SnapshotSource(source.key, None, held)
        return fn(self, req, problems, source, lang)

    return wrapper


class Adjudicator:
    """Every RPC as a method taking the request message and returning the response."""

    def __init__(
        self,
        signer: Signer | None = None,
        *,
        max_replay_actions: int = MAX_REPLAY_ACTIONS,
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

    # -- entry point -----------------------------------------------------------------------
    def call(
        self, method: str, request: Message, problems=(), source: Source = None, lang: str = DEFAULT
    ) -> Message:
        """Dispatch ``method`` (RPC name). ``source``: how the transport received the
        request's snapshot (None: it is in ``request``); ``lang``: the answer's language."""
        try:
            request_type, handler = METHODS[method]
        except KeyError:
            raise api_error(
                "UNIMPLEMENTED", "UNKNOWN_METHOD", "no method {method}", method=repr(method)
            ) from None
        if not isinstance(request, request_type):
            raise api_error(
                "INTERNAL",
                "INTERNAL",
                "{method} takes {type}",
                method=method,
                type=request_type.__name__,
            )
        if source is None and method in _TAKES_SNAPSHOT and request.HasField(SNAPSHOT):
            source = self.snapshots.source_of(request.snapshot)
        return handler(self, request, problems, source, lang)

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
    def _seat(seat: int, snap, field: str) -> None:
        if not 0 <= seat < len(snap.seats):
            raise invalid_argument(
                [
                    problem(
                        field,
                        "OUT_OF_RANGE",
                        "{field} must be a seat 0..{last}, not {seat}",
                        field=field,
                        last=len(snap.seats) - 1,
                        seat=seat,
                    )
                ]
            )

    # -- RPCs ------------------------------------------------------------------------------
    @_handler
    def list_rulesets(
        self, req: pb.ListRulesetsRequest, problems, source, lang
    ) -> pb.ListRulesetsResponse:
        paths.raise_if(problems)
        return pb.ListRulesetsResponse(
            rulesets=[rulesets.ruleset_to_proto(r, lang) for r in engine.profile_rulesets()]
        )

    @_handler
    def get_ruleset(self, req: pb.GetRulesetRequest, problems, source, lang) -> pb.Ruleset:
        paths.raise_if(problems)
        try:
            rules = er.resolve(req.profile, {}, path="profile")
        except er.RulesetError as e:
            raise rulesets.unknown_profile(req.profile, e) from None
        return rulesets.ruleset_to_proto(rules, lang, with_descriptions=True)

    @_handler
    def deal(self, req: pb.DealRequest, problems, source, lang) -> pb.DealResponse:
        if req.HasField("previous"):
            previous, _ = self.snapshots.load(
                req.previous, problems, allow_view=False, field="previous"
            )
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
        resp = pb.DealResponse(snapshot=self.snapshots.render(snap, remember=True))
        self._extras(resp, req, snap, ())
        return resp

    def _extras(self, resp, req, snap: Snapshot, events: Sequence[Event]) -> None:
        """The answer's views and next page, as the request asks (service.pipeline.views)."""
        views.check_view_seats(req, snap)
        if req.include_views:
            seats, spectator = views.seat_views(self.snapshots, snap, events, req.view_seats)
            resp.views.extend(seats)
            if spectator is not None:
                resp.spectator_view.CopyFrom(spectator)
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

    @_handler
    def check_meld(self, req: pb.CheckMeldRequest, problems, source, lang) -> pb.CheckMeldResponse:
        cards = paths.cards(req.cards, "cards", problems)
        if req.HasField("snapshot") or (source is not None and source.loaded is not None):
            snap, _ = self.snapshots.load(req.snapshot, problems, source=source)
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
        return answers.meld_check_to_proto(check, lang)

    @_handler
    def validate_action(
        self, req: pb.ValidateActionRequest, problems, source, lang
    ) -> pb.ValidateActionResponse:
        snap, (action,) = self.snapshots.load(
            req.snapshot, problems, source=source, actions=((req.action, "action"),)
        )
        violations = [answers.violation_to_proto(v, lang) for v in engine.validate(snap, action)]
        return pb.ValidateActionResponse(legal=not violations, violations=violations)

    @_handler
    def apply_action(
        self, req: pb.ApplyActionRequest, problems, source, lang
    ) -> pb.ApplyActionResponse:
        problems.extend(computer.request_problems(req, problems))  # a ProblemList: bounded
        snap, actions = self.snapshots.load(
            req.snapshot,
            problems,
            source=source,
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
            snapshot=self.snapshots.render(out.snapshot, remember=True),
            events=[answers.event_to_proto(e) for e in out.events],
        )
        if out.score is not None:
            resp.score.CopyFrom(answers.score_to_proto(out.score))
        if chosen is not None:
            resp.chosen.CopyFrom(chosen[1])
        self._extras(resp, req, out.snapshot, out.events)
        return resp

    @_handler
    def list_legal_actions(
        self, req: pb.ListLegalActionsRequest, problems, source, lang
    ) -> pb.ListLegalActionsResponse:
        if req.page_size < 0:
            problems.append(Problem("pageSize", "OUT_OF_RANGE", "pageSize must not be negative"))
        snap, _ = self.snapshots.load(req.snapshot, problems, source=source)
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
        ruleset version. The snapshot enters as the service re-encodes it (the same
        whichever transport and encoding brought it, and whether or not the request message
        still holds it)."""
        copy = pb.ListLegalActionsRequest()
        copy.CopyFrom(req)
        copy.ClearField("page_size")
        copy.ClearField("page_token")
        copy.snapshot.CopyFrom(convert.snapshot_to_proto(snap))
        return self.page_tokens.binding(
            copy.SerializeToString(deterministic=True), snap.ruleset.version
        )

    @_handler
    def score_deal(self, req: pb.ScoreDealRequest, problems, source, lang) -> pb.ScoreDealResponse:
        snap, _ = self.snapshots.load(req.snapshot, problems, allow_view=False, source=source)
        report = engine.score(snap, req.provisional)
        int_range.check_played(snap, snap, report)
        return answers.score_to_proto(report)

    @_handler
    def get_player_view(
        self, req: pb.GetPlayerViewRequest, problems, source, lang
    ) -> pb.GetPlayerViewResponse:
        revealing = req.reveal != pb.GetPlayerViewRequest.REVEAL_UNSPECIFIED
        snap, _ = self.snapshots.load(
            req.snapshot, problems, source=source, allow_view=not revealing
        )
        seat = req.seat if req.HasField("seat") else None
        if seat is not None:
            self._seat(seat, snap, "seat")
        if revealing:  # for display: not signed (service/pipeline/reveal.py)
            open_view = reveal.revealed_view(snap, seat, req.reveal)
            resp = pb.GetPlayerViewResponse(snapshot=convert.snapshot_to_proto(open_view))
        else:
            view = engine.player_view(snap, seat)
            resp = pb.GetPlayerViewResponse(snapshot=self.snapshots.render(view))
        if seat is not None:
            resp.viewer_seat = seat
        return resp

    @_handler
    def replay_deal(
        self, req: pb.ReplayDealRequest, problems, source, lang
    ) -> pb.ReplayDealResponse:
        if len(req.actions) > self.max_replay_actions:
            raise too_many_items("ReplayDeal", "actions", self.max_replay_actions, len(req.actions))
        snap, actions = self.snapshots.load(
            req.snapshot,
            problems,
            allow_view=False,
            check_meld_ids=False,
            source=source,
            actions=tuple((a, f"actions[{i}]") for i, a in enumerate(req.actions)),
        )
        results, last, first_illegal, score = engine.replay(snap, actions)
        int_range.check_played(snap, last, score)
        resp = pb.ReplayDealResponse(snapshot=self.snapshots.render(last, remember=True))
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
        self._extras(resp, req, last, [e for ok, _, events in results if ok for e in events])
        return resp

    @_handler
    def suggest_action(
        self, req: pb.SuggestActionRequest, problems, source, lang
    ) -> pb.SuggestActionResponse:
        if problems and req.budget_ms < 0:  # else the engine reports it with the seat's
            problems.append(Problem("budgetMs", "OUT_OF_RANGE", "budgetMs must not be negative"))
        snap, _ = self.snapshots.load(req.snapshot, problems, source=source)
        _, chosen = computer.suggestion(snap, req.seat, req.level, req.seed, req.budget_ms, lang)
        return pb.SuggestActionResponse(action=chosen.action, reason=chosen.reason)


#: RPC name -> (request message type, handler(adjudicator, request, problems, source, lang)).
METHODS: dict[str, tuple[type[Message], Handler]] = {
    "ListRulesets": (pb.ListRulesetsRequest, Adjudicator.list_rulesets),
    "GetRuleset": (pb.GetRulesetRequest, Adjudicator.get_ruleset),
    "Deal": (pb.DealRequest, Adjudicator.deal),
    "CheckMeld": (pb.CheckMeldRequest, Adjudicator.check_meld),
    "ValidateAction": (pb.ValidateActionRequest, Adjudicator.validate_action),
    "ApplyAction": (pb.ApplyActionRequest, Adjudicator.apply_action),
    "ListLegalActions": (pb.ListLegalActionsRequest, Adjudicator.list_legal_actions),
    "ScoreDeal": (pb.ScoreDealRequest, Adjudicator.score_deal),
    "GetPlayerView": (pb.GetPlayerViewRequest, Adjudicator.get_player_view),
    "ReplayDeal": (pb.ReplayDealRequest, Adjudicator.replay_deal),
    "SuggestAction": (pb.SuggestActionRequest, Adjudicator.suggest_action),
    "VerifyDeal": (pb.VerifyDealRequest, _handler(verify.verify_deal)),
}


#: The methods whose answer's snapshot is remembered as loaded (SnapshotLoader.remember).
REMEMBERS = frozenset({"Deal", "ApplyAction", "ReplayDeal"})
_TAKES_SNAPSHOT = frozenset(
    name
    for name, (request_type, _) in METHODS.items()
    if "snapshot" in request_type.DESCRIPTOR.fields_by_name
)


def kebab(method: str) -> str:
    """``ListLegalActions`` -> ``list-legal-actions`` (CLI subcommands)."""
    return "".join("-" + c.lower() if c.isupper() else c for c in method).lstrip("-")
