"""Play from your seat (issue 50, docs/api.md#playground) in a real browser against a real
server (fixtures of tests/test_browser.py): a person plays a whole deal on a phone against
three BASIC computer players by tapping cards and move buttons only, the page is
keyboard-playable, names its cards for screen readers in every language, and axe-core
(npm, .tools/; installed by the tests' own set-up, tests/browser_tools.py, when missing)
finds nothing serious or critical. Screenshots
land in test-output/browser/, the taps each move took in test-output/browser/taps.json."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from browser_tools import axe_core
from service_fixtures import server  # noqa: F401
from test_browser import SHOTS, _same_origin, _shot, browser  # noqa: F401

pytestmark = [pytest.mark.servers, pytest.mark.tools]

ME = 1
PHONE = {"width": 360, "height": 740}
RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
NAMES = {
    "en": ("six of diamonds", "ace of spades", "joker"),
    "es": ("seis de diamantes", "as de picas", "joker"),
    "it": ("sei di quadri", "asso di picche", "jolly"),
    "sv": ("ruter sex", "spader ess", "joker"),
}
EN_RANKS = dict(
    zip(
        [*RANKS, "2"],
        "three four five six seven eight nine ten jack queen king ace two".split(),
        strict=True,
    )
)
EN_SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

#: the page awaits the person (or the deal is over) and shows what is current
MY_TURN_OR_OVER = """([seat, ply]) => {
  const t = document.querySelector('#turn');
  const ready = document.querySelector('#play').dataset.ready === '1';
  const error = !document.querySelector('#error').hidden;
  return error || (ready && t.dataset.ply !== ply
                   && (t.dataset.phase === 'OVER' || t.dataset.awaiting === String(seat)));
}"""
READY = "document.querySelector('#play').dataset.ready === '1'"


def _english_name(code: str) -> str:
    return "joker" if code == "JK" else f"{EN_RANKS[code[:-1]]} of {EN_SUITS[code[-1]]}"


def _serious_axe_violations(pg) -> list[dict]:
    pg.add_script_tag(path=str(axe_core()))
    found = pg.evaluate(
        """() => axe.run(document).then(r => r.violations.map(v => ({
             id: v.id, impact: v.impact, help: v.help,
             nodes: v.nodes.slice(0, 4).map(n => n.target.join(' '))})))"""
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]


def _error(pg) -> str:
    return pg.eval_on_selector("#error", "e => e.hidden ? '' : e.innerText")


def _open_settings_and_sit(pg, base: str, seed: str) -> None:
    pg.goto(base + "/playground")
    pg.wait_for_selector("#log li[data-kind='deal']", state="attached")
    phone = pg.evaluate("innerWidth") <= 900
    # a phone starts with a person at the seat to act first, the others computers; a wide
    # screen with no seat taken (the page explores every seat)
    seat = "1" if phone else ""
    pg.wait_for_function(f"document.querySelector('#me').value === '{seat}' && {READY}")
    assert pg.locator("#play").is_visible() == phone
    if not phone:  # the page exploring every seat, every panel open, passes axe too
        assert _serious_axe_violations(pg) == []
    if not pg.eval_on_selector("#settings", "d => d.open"):
        pg.locator("#settings > summary").tap()
    pg.select_option("#profile", "classic")
    pg.select_option("#players", "4")
    pg.fill("#seed", seed)
    pg.locator("#deal").click()
    pg.wait_for_function("document.querySelector('#log li[data-kind=deal]') !== null")
    pg.select_option("#me", str(ME))
    pg.wait_for_function(MY_TURN_OR_OVER, arg=[ME, "-1"], timeout=120_000)
    assert _error(pg) == ""
    levels = [pg.input_value(f"#bot-{seat}") for seat in range(4)]
    assert levels == ["BASIC", "human", "BASIC", "BASIC"]  # the others play by themselves
    assert pg.eval_on_selector("#viewer", "v => [v.value, v.disabled]") == [str(ME), True]


class Tapper:
    """Plays seat ME by tapping: counts the taps each move took."""

    def __init__(self, pg):
        self.pg = pg
        self.taps = 0
        self.counts: dict[str, list[int]] = {}
        self.refusals: list[str] = []

    def hand(self) -> list[str]:
        return self.pg.eval_on_selector_all("#my-hand button", "bs => bs.map(b => b.dataset.card)")

    def tap(self, selector: str) -> None:
        self.pg.locator(selector).first.tap()
        self.taps += 1
        self.pg.wait_for_function(READY)

    def tap_card(self, index: int) -> None:
        self.tap(f"#my-hand button:nth-child({index + 1})")

    def moves(self) -> list[str]:
        return self.pg.eval_on_selector_all(
            "#moves button.move", "bs => bs.map(b => b.dataset.move)"
        )

    def move(self, kind: str, counted_as: str = "") -> None:
        ply = self.pg.eval_on_selector("#turn", "t => t.dataset.ply")
        self.tap(f"#moves button[data-move='{kind}']")
        self.counts.setdefault(counted_as or kind, []).append(self.taps)
        self.taps = 0
        self.pg.wait_for_function(
            "ply => document.querySelector('#turn').dataset.ply !== ply", arg=ply
        )
        # the new position drawn whole (the hand too), not only the turn line
        self.pg.wait_for_function(READY)

    def clear(self) -> None:
        if self.pg.locator("#clear").is_visible():
            self.pg.locator("#clear").tap()
            self.pg.wait_for_function(READY)
        self.taps = 0

    def select(self, codes: list[str]) -> None:
        """Taps the first cards of the hand that are `codes` (a multiset)."""
        wanted = Counter(codes)
        for i, code in enumerate(self.hand()):
            if wanted[code]:
                wanted[code] -= 1
                self.tap_card(i)

    def refused(self) -> bool:
        why = self.pg.locator("#why li.violation")
        if why.count():
            # every refusal says what to do (issue 59 item 11)
            fix = self.pg.inner_text("#why p.fix")
            assert fix.strip(), self.pg.inner_text("#why")
            self.refusals.append(f"{why.first.inner_text()} / {fix}")
            return True
        return False

    def try_pile(self) -> bool:
        top = self.pg.eval_on_selector("#pile .pile-top .card", "c => c.dataset.card || ''")
        pair = [c for c in self.hand() if top and c[:-1] == top[:-1] and top[:-1] in RANKS[1:]]
        if len(pair) < 2:
            return False
        self.select(pair[:2])
        if "takePile" in self.moves():
            self.move("takePile")
            return True
        self.refused()
        self.clear()
        return False

    def try_meld(self) -> None:
        by_rank = Counter(c[:-1] for c in self.hand() if c != "JK" and c[:-1] in RANKS[1:])
        for rank, n in by_rank.items():
            if n >= 3:
                self.select([c for c in self.hand() if c[:-1] == rank][:3])
                if "meld" in self.moves():
                    self.move("meld")
                    return
                assert self.refused(), (
                    "a selection with no move says why",
                    self.moves(),
                    self.pg.inner_text("#play"),
                    _error(self.pg),
                )
                self.clear()
                # an opening short of points: one wild card more (a joker counts 50)
                wilds = sorted((c for c in self.hand() if c == "JK" or c[:-1] == "2"), key=len)
                if wilds and len(self.hand()) > 6:
                    self.select([c for c in self.hand() if c[:-1] == rank][:3] + wilds[-1:])
                    if "meld" in self.moves():
                        self.move("meld", counted_as="meldWithWild")
                        return
                    self.refused()
                    self.clear()
                return

    def try_meld_tap(self) -> None:
        """A natural of a rank the side has melded, added by tapping that meld."""
        melds = self.pg.eval_on_selector_all(
            ".meld.target",
            "ms => ms.map(m => [m.dataset.meld, m.dataset.cards.split(' ')])",
        )
        for meld_id, cards in melds:
            ranks = {c[:-1] for c in cards if c != "JK" and c[:-1] != "2"}
            mine = [c for c in self.hand() if c[:-1] in ranks and len(ranks) == 1]
            if mine and len(self.hand()) > 2:
                self.select(mine[:1])
                ply = self.pg.eval_on_selector("#turn", "t => t.dataset.ply")
                self.pg.locator(f".meld.target[data-meld='{meld_id}']").tap()
                self.taps += 1
                self.pg.wait_for_function(READY)
                after = self.pg.eval_on_selector("#turn", "t => t.dataset.ply")
                if after != ply:
                    self.counts.setdefault("addByMeldTap", []).append(self.taps)
                    self.taps = 0
                else:
                    self.refused()
                    self.clear()
                return

    def discard(self) -> None:
        hand = self.hand()
        # prefer a lone natural; wild cards and black 3s last
        order = sorted(
            range(len(hand)),
            key=lambda i: (hand[i] == "JK" or hand[i][:-1] in ("2", "3"), hand.count(hand[i])),
        )
        for i in order:
            self.tap_card(i)
            for kind in ("goOut", "discard"):
                if kind in self.moves():
                    self.move(kind)
                    return
            self.refused()
            self.clear()
        raise AssertionError(f"no card of {hand} could be discarded")

    def turn(self) -> None:
        moves = self.moves()
        if "yes" in moves:
            self.move("yes")
        elif "drawStock" in moves:
            if not self.try_pile():
                self.move("drawStock")
        else:
            self.try_meld()
            if self.my_turn_still():
                self.try_meld_tap()
            if self.my_turn_still():
                self.discard()

    def my_turn_still(self) -> bool:
        return self.pg.eval_on_selector(
            "#turn", "(t, seat) => t.dataset.awaiting === String(seat)", ME
        )


def _layout_on_a_phone(pg) -> dict[str, float]:
    """Checks the phone's layout; answers where the pile, your melds, the hand and the moves
    end (the whole turn within the first screen)."""
    widths = pg.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert widths[0] <= widths[1] == 360, widths
    bottoms = _turn_bottoms(pg)
    for sel, bottom in bottoms.items():
        assert bottom <= PHONE["height"], (sel, bottom)
    # settings, the event log and the developer panels folded
    folded = pg.eval_on_selector_all("details.fold", "ds => ds.map(d => [d.id, d.open])")
    assert folded and all(not is_open for _, is_open in folded), folded
    # the developer tools behind their switch: no API link, no move number, no meld id
    assert not pg.locator("header nav").is_visible()
    assert not pg.locator("aside").is_visible()
    # every touch target shown is at least 44 x 44 CSS px
    small = pg.evaluate(
        """() => [...document.querySelectorAll(
                  'button, select, input, textarea, summary, a, [role=button]')]
           .filter(e => e.getClientRects().length)
           .map(e => [e.id || e.dataset.card || e.dataset.meld || e.textContent.trim().slice(0, 20),
                      e.getBoundingClientRect()])
           .filter(([, r]) => r.width < 44 || r.height < 44)
           .map(([name, r]) => [name, Math.round(r.width), Math.round(r.height)])"""
    )
    assert small == [], small
    return bottoms


def _turn_bottoms(pg) -> dict[str, float]:
    """Where the turn's parts end, from the top of the page: the pile, what the others did,
    your melds, your hand and your moves."""
    return {
        sel: pg.eval_on_selector(sel, "e => e.getBoundingClientRect().bottom + scrollY")
        for sel in ("#pile", "#recent", "#my-melds", "#my-hand", "#moves")
    }


#: the seats' names from seat ME, in seat order, at each table size (play passes to the left)
NAMES_FROM_ME = {
    2: ["Across", "You"],
    4: ["Right", "You", "Left", "Partner"],
    6: ["Right", "You", "Left", "Far left", "Across", "Far right"],
}


class Stages:
    """axe-core at every stage a player reaches: the first turn to play, after your side's
    first meld, the end of the deal, the next deal (0 serious or critical each time)."""

    def __init__(self, pg):
        self.pg = pg
        self.checked: dict[str, list] = {}

    def check(self, stage: str) -> None:
        if stage not in self.checked:
            self.checked[stage] = _serious_axe_violations(self.pg)
            assert self.checked[stage] == [], (stage, self.checked[stage])


def _in_view(pg, selector: str) -> bool:
    return pg.eval_on_selector(
        selector,
        "e => { const r = e.getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight; }",
    )


def _my_turn_checks(pg, player, stages, seen: dict) -> None:
    """What a player sees at each of their turns: nothing selected when the turn opens (taps
    while the computers played selected nothing), what the others did under the pile, the
    draw's cards marked, going out asked only where possible, the turn within one screen."""
    phase, seat = pg.eval_on_selector("#turn", "t => [t.dataset.phase, t.dataset.seat]")
    assert pg.locator("#my-hand button.selected").count() == 0
    moves = player.moves()
    if phase == "DRAW" and "yes" not in moves:
        assert "drawStock" in moves, (moves, pg.inner_text("#play"))
        lines = pg.eval_on_selector_all("#recent li", "ls => ls.map(l => l.innerText)")
        seen["recent"] = max(seen.get("recent", 0), len(lines))
        # the card the last seat threw, marked on the pile and named as such
        marked = pg.locator("#pile .pile-top .card.fresh")
        if marked.count():
            assert "just discarded by" in marked.get_attribute("aria-label")
            seen["pileMarked"] = seen.get("pileMarked", 0) + 1
    if phase == "PLAY" and seat == str(ME):
        stages.check("first turn to play")
        seen["fresh"] = seen.get("fresh", 0) + pg.locator("#my-hand button.fresh").count()
        # nothing selected: the hint leads; "may I go out?" only where the side could, quiet
        assert pg.locator("#moves p.muted").count() == 1, pg.inner_text("#moves")
        if "askGoOut" in moves:
            assert "quiet" in pg.eval_on_selector("#moves [data-move=askGoOut]", "b => b.className")
            seen["ask"] = seen.get("ask", 0) + 1
        if len(player.hand()) <= 24:
            pg.evaluate("scrollTo(0, 0)")
            bottoms = _turn_bottoms(pg)
            seen["bottoms"] = {
                k: max(v, seen.get("bottoms", {}).get(k, 0)) for k, v in bottoms.items()
            }
            assert all(v <= PHONE["height"] for v in bottoms.values()), bottoms
    if pg.locator("#my-melds .meld").count():
        stages.check("after a meld")
        names = pg.eval_on_selector_all(
            "#my-melds .meld .sr-only", "ss => ss.map(s => s.innerText)"
        )
        assert all(n.startswith("Add to ") and " m" not in n for n in names), names


@pytest.mark.parametrize("players", [2, 4, 6])
def test_whole_deals_on_a_phone_by_tapping_cards_and_moves(browser, server, players):  # noqa: F811
    """Issues 50 and 59: a person plays a whole deal and the next one's first turn at 2, 4 and
    6 players from one seat, by tapping only, on a 360 x 740 touch screen."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    applies = []
    try:
        pg = context.new_page()
        pg.set_default_timeout(30_000)
        pg.requests_seen, pg.console_errors = [], []
        pg.on("request", lambda r: pg.requests_seen.append(r.url))
        pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
        pg.on(
            "request",
            lambda r: (
                applies.append(json.loads(r.post_data or "{}"))
                if r.url.endswith("/v1/actions:apply")
                else None
            ),
        )
        _deal_on_a_phone(pg, server.base_url, f"table-phone-{players}", players)
        names = pg.eval_on_selector_all(".seat .seat-head b", "bs => bs.map(b => b.innerText)")
        assert names == NAMES_FROM_ME[players]
        player = Tapper(pg)
        stages = Stages(pg)
        seen: dict = {}
        ply = "-1"
        bottoms = None
        while True:
            pg.wait_for_function(MY_TURN_OR_OVER, arg=[ME, ply], timeout=120_000)
            assert _error(pg) == ""
            if pg.eval_on_selector("#turn", "t => t.dataset.phase") == "OVER":
                break
            # the others' hands face down, their counts shown; nothing listed needed
            for other in set(range(players)) - {ME}:
                seat = pg.locator(f".seat[data-seat='{other}']")
                assert seat.locator(".card[data-card]").count() == 0
                assert seat.locator(".card.back").count() > 0
            _my_turn_checks(pg, player, stages, seen)
            if bottoms is None and pg.eval_on_selector("#turn", "t => t.dataset.phase") == "PLAY":
                bottoms = _layout_on_a_phone(pg)
                assert not pg.locator("#clear").is_visible()  # nothing selected
                player.tap_card(0)
                _shot(pg, f"play-phone-{players}-selected")
                player.clear()
                assert not pg.locator("#clear").is_visible()
            ply = pg.eval_on_selector("#turn", "t => t.dataset.ply")
            player.turn()
            _tap_while_the_computers_play(pg)
        assert bottoms is not None
        # the end of the deal brought into view: the result from your side, and Next deal
        pg.wait_for_function(READY)
        assert _in_view(pg, "#outcome .result-line") and _in_view(pg, "#outcome [data-move]")
        stages.check("the end of the deal")
        _shot(pg, f"play-phone-{players}-deal-over")
        pg.screenshot(path=str(SHOTS / f"play-phone-{players}-deal-over-screen.png"))
        final = pg.evaluate("() => state.snapshot")
        assert final["result"]["reason"] in ("WENT_OUT", "STOCK_EXHAUSTED")
        score = pg.request.post(
            server.base_url + "/v1/deals:score", data=json.dumps({"snapshot": final})
        ).json()
        mine = final["seats"][ME].get("side", 0)
        ours = next(s for s in score["sides"] if s.get("side", 0) == mine)
        theirs = max(s.get("dealTotal", 0) for s in score["sides"] if s.get("side", 0) != mine)
        assert pg.inner_text("#outcome .result-line") == (
            f"Your side {ours.get('dealTotal', 0):,} - {theirs:,} them"
        )
        # the service's own itemised score of the final position, folded under the result
        shown = pg.eval_on_selector_all(
            "#outcome tr[data-term]",
            "rs => rs.map(r => [r.dataset.term,"
            " [...r.querySelectorAll('td')].map(d => d.textContent)])",
        )
        expected = [
            [term, [str(side.get(term, 0)) for side in score["sides"]]] for term, _ in shown
        ]
        assert shown == expected and len(shown) == 11
        assert not pg.locator("#clear").is_visible()
        # every move of seat ME was a tap on the page: no typed action, no list
        mine_applied = [a for a in applies if "action" in a]
        assert mine_applied and all(a["action"]["seat"] == ME for a in mine_applied)
        # what the others did was shown under the pile; the draw's cards were marked
        assert seen.get("recent", 0) >= 1 and seen.get("fresh", 0) >= 1, seen
        assert seen.get("pileMarked", 0) >= 1, seen
        # the taps each kind of move took
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / f"taps-{players}.json").write_text(
            json.dumps(
                {
                    "taps": player.counts,
                    "refusals": player.refusals,
                    "bottoms": bottoms,
                    "seen": seen,
                    "axe": stages.checked,
                },
                indent=1,
            )
        )
        assert set(player.counts["drawStock"]) == {1}
        assert set(player.counts.get("discard", [2])) == {2}
        assert set(player.counts.get("meld", [4])) == {4}
        assert set(player.counts.get("takePile", [3])) == {3}
        assert set(player.counts.get("meldWithWild", [5])) == {5}

        # the next deal of the match: the match scores carried, every other seat a computer
        pg.locator("#outcome button[data-move='nextDeal']").tap()
        pg.wait_for_function("document.querySelector('#turn').dataset.phase !== 'OVER'")
        pg.wait_for_function(MY_TURN_OR_OVER, arg=[ME, "-1"], timeout=120_000)
        following = pg.evaluate("() => state.snapshot")
        assert following.get("dealNumber") == 2
        assert [s.get("matchScore", 0) for s in following["sides"]] == [
            s.get("matchTotal", 0) for s in score["sides"]
        ]
        levels = [pg.input_value(f"#bot-{seat}") for seat in range(players)]
        assert levels == ["human" if seat == ME else "BASIC" for seat in range(players)]
        stages.check("the next deal")
        # the next deal's first turn in view, not the last result
        assert pg.evaluate("scrollY") == 0
        assert _error(pg) == ""
        _same_origin(pg, server.base_url)
    finally:
        context.close()


def _deal_on_a_phone(pg, base: str, seed: str, players: int) -> None:
    """The page as a phone opens it (you at the seat to act first, the others computers),
    then a deal of `players` from Settings: every seat but yours is a computer again."""
    pg.goto(base + "/playground")
    pg.wait_for_function(f"document.querySelector('#me').value === '{ME}' && {READY}")
    assert pg.locator("#play").is_visible()
    pg.locator("#settings > summary").tap()
    pg.select_option("#profile", "classic")
    pg.select_option("#players", str(players))
    pg.fill("#seed", seed)
    pg.locator("#deal").tap()
    pg.locator("#settings > summary").tap()  # folded again
    pg.wait_for_function(
        "n => document.querySelectorAll('.seat').length === n"
        " && document.querySelector('#seed').value !== ''",
        arg=players,
    )
    pg.wait_for_function(MY_TURN_OR_OVER, arg=[ME, "-1"], timeout=120_000)
    assert _error(pg) == ""
    levels = [pg.input_value(f"#bot-{seat}") for seat in range(players)]
    assert levels == ["human" if seat == ME else "BASIC" for seat in range(players)]
    # each profile says what kind of game it is
    assert "10,000 to win" in pg.eval_on_selector("#profile-about", "p => p.textContent")


def _tap_while_the_computers_play(pg) -> None:
    """A card tapped while the computers play selects nothing (the next turn opens clean)."""
    # checked and tapped in one go: the computers may finish their moves meanwhile
    selected = pg.evaluate(
        """me => { const t = document.querySelector('#turn');
                   const card = document.querySelector('#my-hand button');
                   if (t.dataset.phase === 'OVER' || t.dataset.awaiting === String(me) || !card)
                     return null;
                   card.click();
                   return document.querySelectorAll('#my-hand button.selected').length; }""",
        ME,
    )
    assert selected in (None, 0), selected


def test_the_wide_table_keeps_its_layout_is_keyboard_playable_and_names_its_cards(
    browser,
    server,  # noqa: F811
):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        pg = context.new_page()
        pg.set_default_timeout(30_000)
        pg.requests_seen, pg.console_errors = [], []
        pg.on("request", lambda r: pg.requests_seen.append(r.url))
        pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
        _open_settings_and_sit(pg, server.base_url, "table-wide-1")
        # today's layout: the table beside the open panels
        columns = pg.eval_on_selector("main", "m => getComputedStyle(m).gridTemplateColumns")
        assert len(columns.split()) == 2, columns
        assert all(pg.eval_on_selector_all("details.fold", "ds => ds.map(d => d.open)"))
        hand = pg.eval_on_selector_all("#my-hand button", "bs => bs.map(b => b.dataset.card)")
        for code in set(hand):  # each card's accessible name is its name in words
            named = pg.locator("#my-hand").get_by_role(
                "button", name=_english_name(code), exact=True
            )
            assert named.count() == hand.count(code), code
        # the keyboard: a card chosen and chosen no more, then the draw
        first = pg.locator("#my-hand button").first
        first.focus()
        pg.keyboard.press("Enter")
        pg.wait_for_function(READY)
        assert first.get_attribute("aria-pressed") == "true"
        pg.keyboard.press("Space")
        pg.wait_for_function(READY)
        assert first.get_attribute("aria-pressed") == "false"
        pg.locator("#moves button[data-move='drawStock']").focus()
        pg.keyboard.press("Enter")
        pg.wait_for_function(
            "document.querySelector('#turn').dataset.phase === 'PLAY'"
            " && document.querySelector('#play').dataset.ready === '1'"
        )
        # suit is said by the symbol and the name, not by the colour alone
        faces = pg.eval_on_selector_all(
            "#my-hand button:not([data-card=JK])", "bs => bs.map(b => b.innerText)"
        )
        assert all(f.strip()[-1] in "♠♥♦♣✓" for f in faces), faces
        assert _serious_axe_violations(pg) == []
        _shot(pg, "play-wide")
        # every language names the cards
        for lang, (six, ace, joker) in NAMES.items():
            pg.select_option("#language", lang)
            pg.wait_for_function(f"document.documentElement.lang === '{lang}'")
            pg.wait_for_function(READY)
            named = pg.evaluate("() => ['6D', 'AS', 'JK'].map(c => cardName(c))")
            assert named == [six, ace, joker], (lang, named)
            count = pg.locator("#my-hand button").count()
            draw = pg.evaluate("n => t('yourHand', {count: n})", count)
            assert pg.inner_text("#my-title") == draw
        assert _error(pg) == ""
        _same_origin(pg, server.base_url)
    finally:
        context.close()


def test_the_match_ends_with_its_winner_and_a_new_match(browser, server):  # noqa: F811
    """A pasted position two moves from the match's end (side 0 at 9,900 of 10,000): seat 0
    adds a king to its kings by keyboard (the card, then the meld), goes out by tapping its
    last card and *Go out*; the page says the match is over and who won, and *New match*
    deals deal 1 again with the match scores at zero."""
    from builders import make_snapshot

    from samba_adjudicator.service.codec import convert, jsonio

    snap = make_snapshot(
        "classic",
        4,
        hands={0: "9C KC"},
        melds={0: ["KH KS KD KC KH KS KD", "QH QS QD QC QH QS QD"]},
        has_melded=(0,),
        match_scores=[9900, 0],
        discard="6C",
        turn_seat=0,
    )
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        pg = context.new_page()
        pg.set_default_timeout(30_000)
        pg.goto(server.base_url + "/playground")
        pg.wait_for_selector("#log li[data-kind='deal']")
        pg.fill("#snapshot-json", json.dumps(jsonio.to_dict(convert.snapshot_to_proto(snap))))
        pg.click("#inspect")
        pg.wait_for_selector("#log li[data-kind='inspect']")
        pg.select_option("#me", "0")
        pg.wait_for_function(MY_TURN_OR_OVER, arg=[0, "-1"])
        # by keyboard: the king chosen, then the kings' meld (a button too) takes it
        pg.locator("#my-hand button[data-card='KC']").focus()
        pg.keyboard.press("Enter")
        pg.wait_for_function(READY)
        kings = pg.locator(".meld.target[data-cards^='KH']")
        assert kings.get_attribute("role") == "button"
        assert kings.locator(".sr-only").inner_text() == "Add to Ks, 7 cards"
        kings.focus()
        pg.keyboard.press("Enter")
        pg.wait_for_function(MY_TURN_OR_OVER, arg=[0, "0"])
        assert kings.get_attribute("data-cards").split().count("KC") == 2
        assert pg.locator("#log li[data-event='MELD_EXTENDED']").count() == 1
        pg.locator("#my-hand button[data-card='9C']").click()
        pg.wait_for_function(READY)
        assert pg.eval_on_selector_all(
            "#moves button.move", "bs => bs.map(b => b.dataset.move)"
        ) == ["goOut"]
        pg.locator("#moves button[data-move='goOut']").click()
        pg.wait_for_function("document.querySelector('#turn').dataset.phase === 'OVER'")
        pg.wait_for_function(READY)
        assert pg.inner_text("#outcome .match-over") == "The match is over: your side won."
        pg.locator("#outcome button[data-move='newMatch']").click()
        pg.wait_for_function("document.querySelector('#turn').dataset.phase !== 'OVER'")
        pg.wait_for_function(READY)
        fresh = pg.evaluate("() => state.snapshot")
        assert fresh.get("dealNumber", 1) == 1
        assert [s.get("matchScore", 0) for s in fresh["sides"]] == [0, 0]
        assert _error(pg) == ""
    finally:
        context.close()
