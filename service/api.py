"""One transport-neutral implementation of every RPC of ``samba.v1.Adjudicator``.

Usage (every transport)::

    adj = Adjudicator(signer=Signer.from_env())
    response = adj.call("Deal", request)                 # gRPC: binary request message
    msg, problems = jsonio.decode(body, METHODS["Deal"][0])
    response = adj.call("Deal", msg, problems)           # REST/CLI: JSON structural problems

``call`` returns the response message or raises ``ApiError`` (never anything else): the
required-field check (descriptor-driven) runs on every request, every problem of a request
is reported together, engine ``InvalidInput`` becomes INVALID_ARGUMENT with the engine's
kind as ErrorInfo reason, and an unexpected exception is logged and becomes INTERNAL.

``METHODS[name] = (RequestType, handler)`` with ``handler(adjudicator, request)``.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from typing import Callable

from google.protobuf.message import Message

from samba_adjudicator import engine
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.deadline import Interrupted
from samba_adjudicator.engine.legal import canonical
from samba_adjudicator.engine.model import InvalidInput, Problem, Snapshot

from . import convert, jsonio, page_tokens, pb
from .errors import ApiError, ProblemList, internal_error, invalid_argument, too_many_items
from .lru import Lru
from .signing import Signer
from .sources import SnapshotSource

log = logging.getLogger("samba.api")

MAX_REPLAY_ACTIONS = 2000
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
# JSON requests are refused before their actions are read one by one (a megabyte holds
# forty thousand of them)
jsonio.ITEM_LIMITS["samba.v1.ReplayDealRequest"] = {"actions": ("ReplayDeal",
                                                                MAX_REPLAY_ACTIONS)}
#: Loaded snapshots kept (``--snapshot-cache-size``): about 5-10 KB each.
SNAPSHOT_CACHE_SIZE = 1024
#: ListLegalActions lists kept for their next pages (one is a few KB in play, a few MB for
#: an absurd 149-card hand).
LISTS_KEPT = 16


def api_error(e: InvalidInput) -> ApiError:
    problems = ProblemList(Problem(convert.json_path(p.field), p.reason, p.description)
                           for p in e.problems)
    problems.omitted += getattr(e.problems, "omitted", 0)
    return invalid_argument(problems, reason=e.kind or "INVALID_REQUEST")


def _handler(fn: Callable) -> Callable:
    """Run the required-field check first (its problems join ``problems``) and turn engine
    InvalidInput / RulesetError into ApiError."""

    @functools.wraps(fn)
    def wrapper(self: "Adjudicator", request: Message, problems=None,
                source: SnapshotSource | None = None) -> Message:
        skip = ("snapshot",) if source is not None and source.loaded is not None else ()
        problems = jsonio.with_required(request, list(problems or ()), skip=skip)
        try:
            return fn(self, request, problems, source)
        except InvalidInput as e:
            raise api_error(e) from None
        except er.RulesetError as e:
            raise invalid_argument([Problem(convert.json_path(p), r, t)
                                    for p, r, t in e.problems]) from None

    return wrapper


class Adjudicator:
    """Every RPC as a method taking the request message and returning the response."""

    def __init__(self, signer: Signer | None = None, *,
                 max_replay_actions: int = MAX_REPLAY_ACTIONS,
                 cache_size: int = SNAPSHOT_CACHE_SIZE,
                 page_token_key: bytes | None = None) -> None:
        self.signer = signer
        self.page_tokens = page_tokens.PageTokens(
            page_token_key or page_tokens.key_from("", signer))
        # ListLegalActions lists by page binding (the request without its page fields)
        self._listed = Lru(LISTS_KEPT)
        self.max_replay_actions = max_replay_actions
        # Snapshots already loaded and checked, by their exact encoding (signature included):
        # see SnapshotSource.
        self._loaded = Lru(cache_size)

    def loaded_snapshot(self, key: tuple) -> Snapshot | None:
        """The snapshot loaded earlier from exactly this encoding (``SnapshotSource.key``)."""
        return self._loaded.get(("snapshot",) + key)

    # -- entry point -----------------------------------------------------------------------
    def call(self, method: str, request: Message, problems=(),
             source: SnapshotSource | None = None) -> Message:
        """Dispatch ``method`` (RPC name); raise only ApiError. ``source``: how the transport
        received the request's snapshot (None: the snapshot, if any, is in ``request``)."""
        try:
            request_type, handler = METHODS[method]
        except KeyError:
            raise ApiError("UNIMPLEMENTED", "UNKNOWN_METHOD", f"no method {method!r}") from None
        if not isinstance(request, request_type):
            raise ApiError("INTERNAL", "INTERNAL", f"{method} takes {request_type.__name__}")
        if source is None and method in _TAKES_SNAPSHOT and request.HasField("snapshot"):
            # called in process with a whole message: key the snapshot by its bytes
            key = ("pb", request.snapshot.SerializeToString(deterministic=True))
            source = SnapshotSource(key, self.loaded_snapshot(key))
        try:
            return handler(self, request, problems, source)
        except (ApiError, Interrupted):  # Interrupted: the caller's deadline (runtime)
            raise
        except InvalidInput as e:
            raise api_error(e) from None
        except Exception:  # never a crash: log it, answer INTERNAL
            log.exception("unexpected error in %s", method)
            raise internal_error() from None

    # -- shared steps ----------------------------------------------------------------------
    def _pin(self, ref_version: str, rules: er.Ruleset, field: str) -> None:
        if ref_version and ref_version != rules.version:
            raise ApiError("FAILED_PRECONDITION", "RULESET_VERSION_MISMATCH",
                           f"{field} pins ruleset version {ref_version!r}; this service "
                           f"adjudicates {rules.profile} at version {rules.version!r}")

    def _snapshot(self, msg: pb.Snapshot, problems: list[Problem], path: str = "snapshot",
                  actions: tuple = (), check_meld_ids: bool = True,
                  allow_view: bool = True, source: SnapshotSource | None = None):
        """Load a request's snapshot (and actions against it): every problem reported
        together; then the version pin, the signature, the view check.

        ``actions``: (pb.Action, path) pairs. Returns (engine snapshot, engine actions).
        ``source``: see SnapshotSource (its ``loaded`` snapshot is used as it is).
        """
        snap = source.loaded if source is not None else None
        cached = snap is not None
        key = None
        if not cached and not problems:
            if self.signer is not None:
                self.signer.check_present(msg.signature, f"{path}.signature")
            if source is not None:  # call() makes one for every request with a snapshot
                key = (path,) + source.key
                snap = self._loaded.get(key)
                cached = snap is not None
        if not cached:
            snap = convert.snapshot_from_proto(msg, path, problems)
        players = len(snap.seats) if snap is not None else None
        ids = convert.meld_ids(snap) if (snap is not None and check_meld_ids) else None
        converted = [convert.action_from_proto(a, apath, problems, players, ids)
                     for a, apath in actions]
        if problems or snap is None:
            raise InvalidInput(problems or [Problem(path, "REQUIRED", f"{path} is required")])
        if not cached:
            convert.raise_if(convert.check_snapshot_input(msg, snap, path))
            if self.signer is not None:
                self.signer.verify(convert.snapshot_to_proto(snap), msg.signature,
                                   f"{path}.signature")
            if key is not None:
                self._loaded.put(key, snap)
        self._pin(snap.ruleset_ref.version, snap.ruleset, f"{path}.ruleset.version")
        if not allow_view and snap.is_view:
            hidden = [Problem(f"{path}.seats[{i}].hand", "SNAPSHOT_IS_VIEW",
                              f"seat {i}'s hand is hidden: a player's view cannot be "
                              f"applied, replayed or scored")
                      for i, s in enumerate(snap.seats) if s.hand_hidden]
            raise invalid_argument(hidden, reason="SNAPSHOT_IS_VIEW")
        return snap, converted

    def _out(self, snap, remember: bool = False) -> pb.Snapshot:
        """The snapshot as answered (signed when keys are set). ``remember``: also keep it as
        loaded under the bytes it is answered in (see ``_remember``)."""
        msg = convert.snapshot_to_proto(snap)
        if self.signer is not None:
            self.signer.sign(msg)
        if remember:
            self._remember(snap, msg)
        return msg

    def _remember(self, snap: Snapshot, msg: pb.Snapshot) -> None:
        """A position this service has just produced (a deal, an applied action) is what the
        client sends next (the next player's legal actions, the next validation): keep it
        as loaded under the exact bytes the answer carries, so that call need not load it.

        What is kept is what loading those bytes gives (the tests compare the two on played
        deals of every profile). Snapshot has no map fields, so its bytes are the same
        with or without deterministic serialization, inside the answer or alone."""
        loaded = dataclasses.replace(snap, signature=msg.signature)
        self._loaded.put(("snapshot", "pb", msg.SerializeToString()), loaded)

    def remember_json(self, msg: pb.Snapshot, rendered: dict) -> None:
        """Also keep a snapshot remembered by ``_remember`` under the key of its JSON
        rendering (``SnapshotSource``), for REST clients that send the object back."""
        snap = self._loaded.get(("snapshot", "pb", msg.SerializeToString()))
        key = jsonio.snapshot_key(rendered)
        if snap is not None and key is not None:
            self._loaded.put(("snapshot",) + key, snap)

    @staticmethod
    def _seat(seat: int, snap, field: str) -> None:
        if not 0 <= seat < len(snap.seats):
            raise invalid_argument([Problem(field, "OUT_OF_RANGE",
                                            f"{field} must be a seat 0..{len(snap.seats) - 1}, "
                                            f"not {seat}")])

    # -- RPCs ------------------------------------------------------------------------------
    @_handler
    def list_rulesets(self, req: pb.ListRulesetsRequest, problems, source
                      ) -> pb.ListRulesetsResponse:
        convert.raise_if(problems)
        return pb.ListRulesetsResponse(
            rulesets=[convert.ruleset_to_proto(r) for r in engine.profile_rulesets()])

    @_handler
    def get_ruleset(self, req: pb.GetRulesetRequest, problems, source) -> pb.Ruleset:
        convert.raise_if(problems)
        try:
            rules = er.resolve(req.profile, {}, path="profile")
        except er.RulesetError as e:
            raise ApiError("NOT_FOUND", "UNKNOWN_PROFILE",
                           "; ".join(text for _, _, text in e.problems)) from None
        return convert.ruleset_to_proto(rules)

    @_handler
    def deal(self, req: pb.DealRequest, problems, source) -> pb.DealResponse:
        rules, ref = convert.ruleset_ref_from_proto(req.ruleset, "ruleset", problems)
        convert.raise_if(problems)
        self._pin(ref.version, rules, "ruleset.version")
        snap = engine.deal(rules, req.players, req.seed, req.dealer, req.deal_number,
                           tuple(req.match_scores), ref)
        return pb.DealResponse(snapshot=self._out(snap, remember=True))

    @_handler
    def check_meld(self, req: pb.CheckMeldRequest, problems, source
                   ) -> pb.CheckMeldResponse:
        cards = convert.cards(req.cards, "cards", problems)
        if req.HasField("snapshot") or (source is not None and source.loaded is not None):
            snap, _ = self._snapshot(req.snapshot, problems, source=source)
            self._seat(req.seat, snap, "seat")
            if req.meld_id and snap.find_meld(req.meld_id) is None:
                raise invalid_argument([Problem("meldId", "UNKNOWN_MELD_ID",
                                                f"no meld has id {req.meld_id!r}")])
            check = engine.check_meld(snap.ruleset, cards, snap, req.seat, req.meld_id or None)
        else:
            if req.meld_id:
                problems.append(Problem("snapshot", "REQUIRED",
                                        "adding to a meld (meldId) needs the snapshot"))
            rules, ref = convert.ruleset_ref_from_proto(req.ruleset, "ruleset", problems)
            convert.raise_if(problems)
            self._pin(ref.version, rules, "ruleset.version")
            check = engine.check_meld(rules, cards)
        return convert.meld_check_to_proto(check)

    @_handler
    def validate_action(self, req: pb.ValidateActionRequest, problems, source
                        ) -> pb.ValidateActionResponse:
        snap, (action,) = self._snapshot(req.snapshot, problems, source=source,
                                         actions=((req.action, "action"),))
        violations = engine.validate(snap, action)
        return pb.ValidateActionResponse(
            legal=not violations, violations=[convert.violation_to_proto(v) for v in violations])

    @_handler
    def apply_action(self, req: pb.ApplyActionRequest, problems, source
                     ) -> pb.ApplyActionResponse:
        snap, (action,) = self._snapshot(req.snapshot, problems, source=source,
                                         actions=((req.action, "action"),), allow_view=False)
        out = engine.apply(snap, action)
        resp = pb.ApplyActionResponse(
            legal=out.legal, violations=[convert.violation_to_proto(v) for v in out.violations],
            snapshot=self._out(out.snapshot, remember=True),
            events=[convert.event_to_proto(e) for e in out.events])
        if out.score is not None:
            resp.score.CopyFrom(convert.score_to_proto(out.score))
        return resp

    @_handler
    def list_legal_actions(self, req: pb.ListLegalActionsRequest, problems, source
                           ) -> pb.ListLegalActionsResponse:
        if req.page_size < 0:
            problems.append(Problem("pageSize", "OUT_OF_RANGE", "pageSize must not be negative"))
        snap, _ = self._snapshot(req.snapshot, problems, source=source)
        seat = req.seat if req.HasField("seat") else None
        if seat is not None:
            self._seat(seat, snap, "seat")
        size = min(req.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        binding = self._page_binding(req, snap)
        offset = self.page_tokens.read(req.page_token, binding) if req.page_token else 0
        listed = self._listed.get(binding)
        if listed is None:
            # one list per request, whichever page is asked: a client paging through a
            # long list must not have it computed again for every page
            listed = engine.legal_actions(snap, seat)
            self._listed.put(binding, listed)
        actions, complete = listed
        total = len(actions)
        if offset > total:
            raise page_tokens.mismatch()
        end = offset + size
        return pb.ListLegalActionsResponse(
            # card lists print in canonical order (CONTRACT.md §5), sorted for this page only
            actions=[convert.action_to_proto(canonical(a)) for a in actions[offset:end]],
            total_size=total,
            next_page_token=self.page_tokens.issue(end, binding) if end < total else "",
            complete=complete)

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
        return self.page_tokens.binding(copy.SerializeToString(deterministic=True),
                                        snap.ruleset.version)

    @_handler
    def score_deal(self, req: pb.ScoreDealRequest, problems, source) -> pb.ScoreDealResponse:
        snap, _ = self._snapshot(req.snapshot, problems, allow_view=False, source=source)
        return convert.score_to_proto(engine.score(snap, req.provisional))

    @_handler
    def get_player_view(self, req: pb.GetPlayerViewRequest, problems, source
                        ) -> pb.GetPlayerViewResponse:
        snap, _ = self._snapshot(req.snapshot, problems, source=source)
        seat = req.seat if req.HasField("seat") else None
        if seat is not None:
            self._seat(seat, snap, "seat")
        resp = pb.GetPlayerViewResponse(snapshot=self._out(engine.player_view(snap, seat)))
        if seat is not None:
            resp.viewer_seat = seat
        return resp

    @_handler
    def replay_deal(self, req: pb.ReplayDealRequest, problems, source) -> pb.ReplayDealResponse:
        if len(req.actions) > self.max_replay_actions:
            raise too_many_items("ReplayDeal", "actions", self.max_replay_actions,
                                 len(req.actions))
        snap, actions = self._snapshot(
            req.snapshot, problems, allow_view=False, check_meld_ids=False, source=source,
            actions=tuple((a, f"actions[{i}]") for i, a in enumerate(req.actions)))
        results, last, first_illegal, score = engine.replay(snap, actions)
        resp = pb.ReplayDealResponse(snapshot=self._out(last, remember=True))
        for i, (legal, violations, events) in enumerate(results):
            item = resp.results.add(
                legal=legal, violations=[convert.violation_to_proto(v) for v in violations],
                events=[convert.event_to_proto(e) for e in events])
            for v in item.violations:  # paths relative to this request: actions[i]…
                if v.field == "action" or v.field.startswith(("action.", "action[")):
                    v.field = f"actions[{i}]" + v.field[len("action"):]
        if first_illegal is not None:
            resp.first_illegal_index = first_illegal
        if score is not None:
            resp.score.CopyFrom(convert.score_to_proto(score))
        return resp


#: RPC name -> (request message type, handler(adjudicator, request[, problems])).
METHODS: dict[str, tuple[type, Callable]] = {
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
}


#: The methods whose answer's snapshot is remembered as loaded (Adjudicator._remember).
REMEMBERS = frozenset({"Deal", "ApplyAction", "ReplayDeal"})
_TAKES_SNAPSHOT = frozenset(name for name, (request_type, _) in METHODS.items()
                            if "snapshot" in request_type.DESCRIPTOR.fields_by_name)


def response_type(method: str) -> type:
    """The response message class of ``method`` (from the service descriptor)."""
    from google.protobuf import symbol_database
    out = pb.SERVICE.methods_by_name[method].output_type
    return symbol_database.Default().GetSymbol(out.full_name)


def kebab(method: str) -> str:
    """``ListLegalActions`` -> ``list-legal-actions`` (CLI subcommands)."""
    return "".join("-" + c.lower() if c.isupper() else c for c in method).lstrip("-")
