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

    def move(self, kind: str) -> None:
        ply = self.pg.eval_on_selector("#turn", "t => t.dataset.ply")
        self.tap(f"#moves button[data-move='{kind}']")
        self.counts.setdefault(kind, []).append(self.taps)
        self.taps = 0
        self.pg.wait_for_function(
            "ply => document.querySelector('#turn').dataset.ply !== ply", arg=ply
        )

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
            self.refusals.append(why.first.inner_text())
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
                return

    def try_meld_tap(self) -> None:
        """A natural of a rank the side has melded, added by tapping that meld."""
        melds = self.pg.eval_on_selector_all(
            ".meld.target",
            "ms => ms.map(m => [m.dataset.meld, [...m.querySelectorAll('[data-card]')]"
            ".map(c => c.dataset.card)])",
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
    """Checks the phone's layout; answers where the pile, the hand and the moves end."""
    widths = pg.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert widths[0] <= widths[1] == 360, widths
    # the pile, the hand and the moves within the first screen and a half
    bottoms = {}
    for sel in ("#pile", "#my-hand", "#moves"):
        bottoms[sel] = pg.eval_on_selector(sel, "e => e.getBoundingClientRect().bottom + scrollY")
        assert bottoms[sel] <= 1.5 * PHONE["height"], (sel, bottoms[sel])
    # settings, the event log and the developer panels folded
    folded = pg.eval_on_selector_all("details.fold", "ds => ds.map(d => [d.id, d.open])")
    assert folded and all(not is_open for _, is_open in folded), folded
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


def test_a_whole_deal_on_a_phone_by_tapping_cards_and_moves(browser, server):  # noqa: F811
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
        _open_settings_and_sit(pg, server.base_url, "table-phone-3")
        pg.locator("#settings > summary").tap()  # fold the settings again
        player = Tapper(pg)
        checked = False
        ply = "-1"
        while True:
            pg.wait_for_function(MY_TURN_OR_OVER, arg=[ME, ply], timeout=120_000)
            assert _error(pg) == ""
            if pg.eval_on_selector("#turn", "t => t.dataset.phase") == "OVER":
                break
            # the others' hands face down, their counts shown; nothing listed needed
            for other in (0, 2, 3):
                seat = pg.locator(f".seat[data-seat='{other}']")
                assert seat.locator(".card[data-card]").count() == 0
                assert seat.locator(".card.back").count() > 0
            if not checked and pg.eval_on_selector("#turn", "t => t.dataset.phase") == "PLAY":
                checked = True
                bottoms = _layout_on_a_phone(pg)
                assert _serious_axe_violations(pg) == []
                assert not pg.locator("#clear").is_visible()  # nothing selected
                player.tap_card(0)
                _shot(pg, "play-phone-selected")
                player.clear()
                assert not pg.locator("#clear").is_visible()
            ply = pg.eval_on_selector("#turn", "t => t.dataset.ply")
            player.turn()
        assert checked
        _shot(pg, "play-phone-deal-over")
        # the deal ends with the service's own score of the final position
        final = pg.evaluate("() => state.snapshot")
        assert final["result"]["reason"] in ("WENT_OUT", "STOCK_EXHAUSTED")
        score = pg.request.post(
            server.base_url + "/v1/deals:score", data=json.dumps({"snapshot": final})
        ).json()
        shown = pg.eval_on_selector_all(
            "#outcome tr[data-term]",
            "rs => rs.map(r => [r.dataset.term,"
            " [...r.querySelectorAll('td')].map(d => d.innerText)])",
        )
        expected = [
            [term, [str(side.get(term, 0)) for side in score["sides"]]] for term, _ in shown
        ]
        assert shown == expected and len(shown) == 11
        assert pg.locator("#outcome").is_visible()
        assert not pg.locator("#clear").is_visible()
        # every move of seat ME was a tap on the page: no typed action, no list
        mine = [a for a in applies if "action" in a]
        assert mine and all(a["action"]["seat"] == ME for a in mine)
        assert pg.eval_on_selector("#actions-fold", "d => d.open") is False
        assert pg.eval_on_selector("#try-fold", "d => d.open") is False
        # the taps each kind of move took
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "taps.json").write_text(
            json.dumps(
                {"taps": player.counts, "refusals": player.refusals, "bottoms": bottoms}, indent=1
            )
        )
        assert set(player.counts["drawStock"]) == {1}
        assert set(player.counts.get("discard", [2])) == {2}
        assert set(player.counts.get("meld", [4])) == {4}
        assert set(player.counts.get("takePile", [3])) == {3}
        assert "meld" in player.counts or player.refusals, player.counts

        # the next deal of the match: the match scores carried
        pg.locator("#outcome button[data-move='nextDeal']").tap()
        pg.wait_for_function("document.querySelector('#turn').dataset.phase !== 'OVER'")
        pg.wait_for_function(READY)
        following = pg.evaluate("() => state.snapshot")
        assert following.get("dealNumber") == 2
        assert [s.get("matchScore", 0) for s in following["sides"]] == [
            s.get("matchTotal", 0) for s in score["sides"]
        ]
        assert _error(pg) == ""
        _same_origin(pg, server.base_url)
    finally:
        context.close()


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
            draw = pg.evaluate("() => t('yourHand', {seat: 1})")
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
        kings = pg.locator(".meld.target", has=pg.locator("[data-card='KH']"))
        assert kings.get_attribute("role") == "button"
        kings.focus()
        pg.keyboard.press("Enter")
        pg.wait_for_function(MY_TURN_OR_OVER, arg=[0, "0"])
        assert kings.locator("[data-card='KC']").count() == 2
        assert pg.locator("#log li[data-event='MELD_EXTENDED']").count() == 1
        pg.locator("#my-hand button[data-card='9C']").click()
        pg.wait_for_function(READY)
        assert pg.eval_on_selector_all(
            "#moves button.move", "bs => bs.map(b => b.dataset.move)"
        ) == ["goOut"]
        pg.locator("#moves button[data-move='goOut']").click()
        pg.wait_for_function("document.querySelector('#turn').dataset.phase === 'OVER'")
        pg.wait_for_function(READY)
        assert pg.inner_text("#outcome .match-over") == "The match is over: side 0 wins."
        pg.locator("#outcome button[data-move='newMatch']").click()
        pg.wait_for_function("document.querySelector('#turn').dataset.phase !== 'OVER'")
        pg.wait_for_function(READY)
        fresh = pg.evaluate("() => state.snapshot")
        assert fresh.get("dealNumber", 1) == 1
        assert [s.get("matchScore", 0) for s in fresh["sides"]] == [0, 0]
        assert _error(pg) == ""
    finally:
        context.close()
