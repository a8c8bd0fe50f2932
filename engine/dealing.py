"""Dealing a new deal: a documented, version-stable shuffle (docs/rules.md#dealing).

The same (ruleset version, players, dealer, deal number, seed) always gives the same deal,
in every language: the algorithm below uses nothing but SHA-256 and integer arithmetic, so
other clients can reproduce a deal bit for bit (docs/dealing.md repeats it with a test
vector).

Shuffle, version ``samba-deal/v1``
----------------------------------
1. **Key.** ``key = SHA-256(utf8(S))`` with the canonical string
   ``S = "samba-deal/v1|" + ruleset.version + "|" + players + "|" + dealer + "|"
   + deal_number + "|" + seed`` (integers in decimal, no padding; the seed last and
   verbatim, so a ``|`` inside it is harmless).
2. **Byte stream.** Block ``i`` (i = 0, 1, 2, …) is ``SHA-256(key || i)`` with ``i`` as an
   8-byte big-endian unsigned integer; the stream is block 0, block 1, … concatenated.
3. **Words.** The stream is read as consecutive 32-bit big-endian unsigned words.
4. **Uniform integer in 0..m-1** (rejection sampling): ``limit = 2**32 - (2**32 mod m)``;
   take the next word ``w``; if ``w < limit`` the answer is ``w mod m``, otherwise discard
   ``w`` and take the next word.
5. **Pack order** (the shuffle's input, ``engine.cards.pack_list``): ``decks`` copies of
   the 52 suited codes in canonical order (``AS AH AD AC 2S 2H … KD KC``), deck after deck,
   then ``jokers`` times ``JK``.
6. **Fisher–Yates**: for ``i`` from ``n-1`` down to ``1``: ``j = uniform(0..i)`` (m = i+1);
   swap ``a[i]`` and ``a[j]``.
7. The shuffled list is dealt from its **front**: ``a[0]`` is the first card dealt.

Deal order (docs/api.md#methods)
--------------------------------
- ``hand_size`` rounds; in each round every seat gets one card, starting with seat
  ``dealer+1 mod n`` and going clockwise (increasing seat number mod n).
- The next card is the upcard, the first card of the discard pile. While the pile's top is
  a card the ruleset buries (``upcard_buried_if``), the next card goes on top of it.
- Red 3s dealt: seat by seat from ``dealer+1`` clockwise, the seat lays out every red 3 of
  its hand (in hand order) onto its side's ``red_threes``. With ``REPLACE_NOW`` it draws as
  many replacements from the stock, appended to the hand, and repeats while a replacement
  is itself a red 3, before the next seat; with ``REPLACE_AT_FIRST_TURN`` (spanish) it
  draws nothing and ``red_three_replacements_owed`` counts the red 3s laid.
- The rest is the stock, ``stock[0]`` drawn next.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from .cards import RANK, RED_THREES, WILD, pack_list
from .deal_seed import commitment, contribution_problems, shuffle_seed
from .messages import problem
from .model import InvalidInput, Phase, Problem, RulesetRef, Seat, Side, Snapshot, Turn
from .ruleset import RedThreeReplacement, Ruleset, UpcardRule

SHUFFLE_VERSION = "samba-deal/v1"
MAX_SEED_BYTES = 128

#: Which upcards are buried under the next card (docs/rules.md#dealing).
BURIED: dict[UpcardRule, Callable[[str], bool]] = {
    UpcardRule.BURY_NOTHING: lambda c: False,
    UpcardRule.BURY_WILD_OR_RED_THREE: lambda c: c in WILD or c in RED_THREES,
    UpcardRule.BURY_WILD_OR_ANY_THREE: lambda c: c in WILD or RANK[c] == "3",
}


# -- the shuffle ---------------------------------------------------------------------------


def shuffle_key(
    ruleset_version: str, players: int, dealer: int, deal_number: int, seed: str
) -> bytes:
    text = f"{SHUFFLE_VERSION}|{ruleset_version}|{players}|{dealer}|{deal_number}|{seed}"
    return hashlib.sha256(text.encode("utf-8")).digest()


def _words(key: bytes) -> Iterator[int]:
    """Consecutive 32-bit big-endian words of the SHA-256 counter-mode stream."""
    block = 0
    while True:
        digest = hashlib.sha256(key + block.to_bytes(8, "big")).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k : k + 4], "big")
        block += 1


def _uniform(words: Iterator[int], m: int) -> int:
    """A uniform integer in 0..m-1 by rejection sampling on 32-bit words."""
    limit = 2**32 - (2**32 % m)
    while True:
        w = next(words)
        if w < limit:
            return w % m


def shuffled(cards: Sequence[str], key: bytes) -> list[str]:
    """Fisher–Yates over ``cards`` driven by the key's stream (docstring, steps 2–6)."""
    a = list(cards)
    words = _words(key)
    for i in range(len(a) - 1, 0, -1):
        j = _uniform(words, i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def shuffled_pack(
    ruleset: Ruleset, players: int, dealer: int, deal_number: int, seed: str
) -> list[str]:
    key = shuffle_key(ruleset.version, players, dealer, deal_number, seed)
    return shuffled(pack_list(ruleset.decks, ruleset.jokers), key)


# -- validation ----------------------------------------------------------------------------


def _problems(
    ruleset: Ruleset,
    players: object,
    seed: object,
    dealer: object,
    deal_number: object,
    match_scores: Sequence[object],
) -> list[Problem]:
    out: list[Problem] = []
    allowed = ruleset.players_allowed
    players_ok = isinstance(players, int) and not isinstance(players, bool) and players in allowed
    if not players_ok:
        out.append(
            problem(
                "players",
                "UNSUPPORTED_PLAYER_COUNT",
                "{profile} is played by {allowed} players, not {players}",
                profile=ruleset.profile,
                allowed=", ".join(str(n) for n in allowed),
                players=repr(players),
            )
        )
    if not isinstance(seed, str) or seed == "":
        out.append(Problem("seed", "REQUIRED", "seed is a required non-empty string"))
    elif len(seed.encode("utf-8")) > MAX_SEED_BYTES:
        out.append(
            problem(
                "seed", "OUT_OF_RANGE", "seed is at most {max} bytes of UTF-8", max=MAX_SEED_BYTES
            )
        )
    n = players if isinstance(players, int) and not isinstance(players, bool) else 0
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < max(n, 1):
        out.append(
            problem(
                "dealer",
                "OUT_OF_RANGE",
                "dealer must be a seat 0..{last}, not {dealer}",
                last=max(n, 1) - 1,
                dealer=repr(dealer),
            )
        )
    if not isinstance(deal_number, int) or isinstance(deal_number, bool) or deal_number < 0:
        out.append(
            problem(
                "dealNumber",
                "OUT_OF_RANGE",
                "dealNumber must be 1 or more (0 means 1), not {number}",
                number=repr(deal_number),
            )
        )
    if players_ok:
        sides = ruleset.sides_for(n)
        if len(match_scores) not in (0, sides):
            out.append(
                problem(
                    "matchScores",
                    "OUT_OF_RANGE",
                    "matchScores lists one score per side ({sides} sides) or none, not {count}",
                    sides=sides,
                    count=len(match_scores),
                )
            )
    for i, s in enumerate(match_scores):
        if not isinstance(s, int) or isinstance(s, bool):
            out.append(Problem(f"matchScores[{i}]", "OUT_OF_RANGE", "a score is an integer"))
    return out


# -- the deal ------------------------------------------------------------------------------


class _Deck:
    """The shuffled pack, dealt from its front."""

    def __init__(self, cards: list[str]):
        self.cards = cards
        self.pos = 0

    def take(self, count: int) -> list[str]:
        got = self.cards[self.pos : self.pos + count]
        self.pos += len(got)
        return got

    def rest(self) -> tuple[str, ...]:
        return tuple(self.cards[self.pos :])


def deal(
    ruleset: Ruleset,
    players: int,
    seed: str,
    dealer: int = 0,
    deal_number: int = 1,
    match_scores: Sequence[int] = (),
    ruleset_ref: RulesetRef | None = None,
    contributions: Sequence[str] = (),
) -> Snapshot:
    """Deal a new deal (module docstring). ``deal_number`` 0 means "omitted", i.e. 1.

    ``seed`` is the server's secret; with ``contributions`` the shuffle's seed is the hash of
    both (engine.deal_seed), without them the secret itself. The snapshot carries the
    secret's commitment either way.

    Raises InvalidInput listing every problem of the request.
    """
    match_scores = tuple(match_scores or ())
    problems = _problems(ruleset, players, seed, dealer, deal_number, match_scores)
    problems += contribution_problems(contributions, "seedContributions")
    if problems:
        raise InvalidInput(problems)
    deal_number = deal_number or 1
    pack = shuffled_pack(ruleset, players, dealer, deal_number, shuffle_seed(seed, contributions))
    snap = deal_pack(ruleset, players, pack, dealer, deal_number, match_scores, ruleset_ref)
    return dataclasses.replace(snap, deal_commitment=commitment(seed))


def deal_pack(
    ruleset: Ruleset,
    players: int,
    pack: Sequence[str],
    dealer: int = 0,
    deal_number: int = 1,
    match_scores: Sequence[int] = (),
    ruleset_ref: RulesetRef | None = None,
) -> Snapshot:
    """Deal ``pack`` in its order, top card first: one card at a time from the dealer's left,
    then the upcard(s), then dealt red 3s laid out; the rest is the stock.

    ``deal`` calls it with the seeded shuffle; a test stacks a deck with it. The arguments
    are not checked here (``deal`` does that).
    """
    sides_n = ruleset.sides_for(players)
    scores = tuple(match_scores) if match_scores else (0,) * sides_n
    deck = _Deck(list(pack))
    order = [(dealer + k) % players for k in range(1, players + 1)]  # left of dealer first
    hands: dict[int, list[str]] = {s: [] for s in range(players)}
    for _ in range(ruleset.table_size(players).hand_size):
        for s in order:
            hands[s].extend(deck.take(1))
    discard = _upcards(ruleset, deck)
    red_threes: dict[int, list[str]] = {side: [] for side in range(sides_n)}
    owed: Counter[int] = Counter()
    for s in order:
        owed[s] = _lay_dealt_red_threes(ruleset, deck, hands[s], red_threes[s % sides_n])
    stock = deck.rest()
    seats = tuple(
        Seat(
            seat=s,
            side=s % sides_n,
            hand=tuple(hands[s]),
            hand_count=len(hands[s]),
            has_melded=False,
            dealt=tuple(hands[s]),
            red_three_replacements_owed=owed[s],
        )
        for s in range(players)
    )
    sides = tuple(
        Side(
            side=t,
            seats=tuple(s for s in range(players) if s % sides_n == t),
            match_score=scores[t],
            red_threes=tuple(red_threes[t]),
        )
        for t in range(sides_n)
    )
    return Snapshot(
        ruleset=ruleset,
        deal_number=deal_number,
        dealer=dealer,
        seats=seats,
        sides=sides,
        stock=stock,
        stock_count=len(stock),
        discard_pile=tuple(discard),
        turn=Turn(seat=(dealer + 1) % players, phase=Phase.DRAW),
        ply=0,
        result=None,
        ruleset_ref=ruleset_ref or RulesetRef(),
    )


def _upcards(ruleset: Ruleset, deck: _Deck) -> list[str]:
    """The upcard, and the cards put on it while it is one the ruleset buries."""
    discard = deck.take(1)
    buried = BURIED[ruleset.upcard_buried_if]
    while buried(discard[-1]):
        more = deck.take(1)
        if not more:
            break
        discard.extend(more)
    return discard


def _lay_dealt_red_threes(
    ruleset: Ruleset, deck: _Deck, hand: list[str], red_threes: list[str]
) -> int:
    """The seat lays out its dealt red 3s onto its side's; returns the replacements owed
    (REPLACE_AT_FIRST_TURN), or draws them now, again while they are red 3s."""
    while True:
        laid = [c for c in hand if c in RED_THREES]
        if not laid:
            return 0
        hand[:] = [c for c in hand if c not in RED_THREES]
        red_threes.extend(laid)
        if ruleset.red_threes is not RedThreeReplacement.REPLACE_NOW:
            return len(laid)
        take = deck.take(len(laid))
        hand.extend(take)
        if not take:
            return 0  # no card left to replace it (docs/rules.md#stock-end)
