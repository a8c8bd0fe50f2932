"""The playground as a card table (docs/api.md#playground) in a real browser, against a real
server (fixtures of tests/test_browser.py): cards with their suits' symbols and colours,
sorted hands, an event log of the whole deal as each viewer saw it with the computer
players' moves as they happen, every label in the chosen language, a phone's screen, the
favicon. Screenshots land in test-output/browser/."""

from __future__ import annotations

import json

import pytest
from service_fixtures import server  # noqa: F401
from test_browser import (  # noqa: F401
    TURN_IS,
    _same_origin,
    _shot,
    _turn,
    browser,
    page,
)

pytestmark = [pytest.mark.servers, pytest.mark.tools]

SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED, BLACK, PURPLE = "rgb(192, 40, 45)", "rgb(29, 35, 39)", "rgb(123, 44, 191)"
RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
SUITS = "SHCD"

#: the computer players' moves: every ApplyAction the page sent with `computer`
COMPUTER_APPLIES = (
    "[...document.querySelectorAll('#log li[data-by=computer]')].map(li => li.dataset.seat)"
)


def _key(code: str, by_suit: bool) -> tuple:
    if code == "JK":
        return (1, 0, len(RANKS), 0)
    rank, suit = code[:-1], code[-1]
    wild = rank == "2"
    return (
        int(wild),
        SUITS.index(suit) if by_suit and not wild else 0,
        RANKS.index(rank),
        SUITS.index(suit),
    )


def _hand(pg, seat: int) -> list[str]:
    return pg.eval_on_selector_all(
        f".seat[data-seat='{seat}'] .hand .card[data-card]", "cs => cs.map(c => c.dataset.card)"
    )


def _deal(pg, base: str, seed: str, computers=()) -> None:
    if pg.url != base + "/playground":
        pg.goto(base + "/playground")
    pg.wait_for_selector("#actions li button")
    pg.select_option("#profile", "classic")
    pg.select_option("#players", "4")
    pg.fill("#seed", seed)
    pg.click("#deal")
    pg.wait_for_selector("#log li[data-kind='deal']")
    pg.wait_for_selector("#actions li button")
    for seat in computers:
        pg.select_option(f"#bot-{seat}", "BASIC")


def test_cards_wear_their_suits_in_colour_and_hands_are_sorted(page, server):  # noqa: F811
    _deal(page, server.base_url, "playground-1")
    faces = page.eval_on_selector_all(
        ".seat .hand .card[data-card]",
        """cs => cs.map(c => ({code: c.dataset.card, text: c.innerText.replace(/\\s/g, ''),
                              colour: getComputedStyle(c).color}))""",
    )
    assert len(faces) == 15 * 4  # classic deals 15 to each of 4 seats
    assert any(f["code"] == "JK" for f in faces), "the seed deals a joker"
    for f in faces:
        if f["code"] == "JK":
            assert f["colour"] == PURPLE and f["text"] == "★", f
            continue
        rank, suit = f["code"][:-1], f["code"][-1]
        assert f["text"] == rank + SYMBOLS[suit], f
        assert f["colour"] == (RED if suit in "HD" else BLACK), f
    # no card is shown as its code anywhere on the table (the pile's top card included)
    assert page.locator("#table .card[data-card]").count() > 60
    assert "10S" not in page.inner_text("#table") and "JK" not in page.inner_text("#table")

    for seat in range(4):
        hand = _hand(page, seat)
        assert hand == sorted(hand, key=lambda c: _key(c, False)), (seat, hand)
        assert hand != sorted(hand, key=lambda c: _key(c, True))  # the two orders do differ
    _shot(page, "table-by-rank")
    page.select_option("#sort", "suit")
    for seat in range(4):
        hand = _hand(page, seat)
        assert hand == sorted(hand, key=lambda c: _key(c, True)), (seat, hand)
    _shot(page, "table-by-suit")
    _same_origin(page, server.base_url)


def test_the_log_keeps_the_whole_deal_with_each_computer_move_as_it_happens(page, server):  # noqa: F811
    applies = []
    page.on(
        "request",
        lambda r: (
            applies.append(json.loads(r.post_data or "{}"))
            if r.url.endswith("/v1/actions:apply")
            else None
        ),
    )
    suggests = []
    page.on("request", lambda r: suggests.append(r.url) if "actions:suggest" in r.url else None)
    _deal(page, server.base_url, "browser-log-1", computers=(0, 2, 3))
    assert _turn(page) == (1, "DRAW")
    assert page.locator("#log > li").count() == 1  # the deal

    # seat 1 (a person) draws: seen in full by everyone's view, face down by seat 2
    page.locator("#actions li button").first.click()
    page.wait_for_function(TURN_IS, arg=[1, "PLAY"])
    drawn = page.locator("#log > li[data-seat='1'] li[data-event='CARDS_DRAWN']")
    assert drawn.locator(".card[data-card]").count() == 2
    page.select_option("#viewer", "2")
    page.wait_for_function(
        "document.querySelector(\"#log li[data-event='CARDS_DRAWN'] .card.back\") !== null"
    )
    assert drawn.locator(".card[data-card]").count() == 0
    assert drawn.locator(".card.back").count() == 2
    page.select_option("#viewer", "full")
    page.wait_for_function(
        "document.querySelector(\"#log li[data-event='CARDS_DRAWN'] .card.back\") === null"
    )

    # seat 1 discards: the computer players then play one after the other, each move shown
    # while the next is still to come
    page.locator("#actions li button", has_text="discard").first.click()
    page.wait_for_function(
        "document.querySelectorAll('#log li[data-by=computer]').length >= 1"
        " && document.querySelector('#turn').dataset.seat === '2'",
        timeout=60_000,
    )
    shown_first = page.locator("#log > li").count()
    page.wait_for_function(
        "document.querySelector('#turn').dataset.seat === '1'"
        " && document.querySelector('#turn').dataset.phase === 'DRAW'",
        timeout=60_000,
    )
    page.wait_for_timeout(200)  # the last computer move's pause
    entries = page.locator("#log > li")
    assert entries.count() > shown_first
    seats = page.evaluate(COMPUTER_APPLIES)
    # one ApplyAction per computer move (no SuggestAction), each move one entry, in turn order
    computer_calls = [a for a in applies if "computer" in a]
    assert len(computer_calls) == len(seats) >= 3
    assert suggests == []
    assert [str(a["computer"]["seat"]) for a in computer_calls] == seats
    order = [s for i, s in enumerate(seats) if i == 0 or seats[i - 1] != s]
    assert order == ["2", "3", "0"]
    # every computer move says what happened (each draws, each discards) and why
    for seat in ("2", "3", "0"):
        move = page.locator(f"#log > li[data-by=computer][data-seat='{seat}']")
        events = move.locator("li[data-event]").evaluate_all("ls => ls.map(l => l.dataset.event)")
        assert "CARDS_DRAWN" in events and "DISCARDED" in events, (seat, events)
        assert move.locator(".reason").count() >= 1
    # the log scrolls, the newest entry last and in sight
    box = page.eval_on_selector(
        "#log",
        """l => ({overflow: getComputedStyle(l).overflowY, scrolled: l.scrollTop,
                  bottom: l.scrollHeight - l.clientHeight,
                  last: l.lastElementChild.dataset.seat})""",
    )
    assert box["overflow"] == "auto"
    assert box["last"] == "0"
    assert box["scrolled"] >= box["bottom"] - 2
    _shot(page, "table-log")
    _same_origin(page, server.base_url)


def test_switching_language_says_every_label_again(page, server):  # noqa: F811
    _deal(page, server.base_url, "browser-lang-1")
    page.locator("#actions li button").first.click()  # seat 1 draws
    page.wait_for_function(TURN_IS, arg=[1, "PLAY"])
    english = page.inner_text("body")
    for lang, title, turn, drew in (
        ("es", "Mesa de Samba", "el asiento 1 juega", "robó del mazo"),
        ("it", "Tavolo di Samba", "il posto 1 gioca", "ha pescato dal tallone"),
        ("sv", "Sambabord", "plats 1 spelar", "drog från talongen"),
    ):
        page.select_option("#language", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        page.wait_for_function(
            "t => document.querySelector('#turn').innerText.includes(t)", arg=turn
        )
        ui = page.evaluate(
            """lang => fetch('/playground/texts.json', {headers: {'accept-language': lang}})
                       .then(r => r.json()).then(t => t.ui)""",
            lang,
        )
        # every static label is the catalog's, the page's title too
        labels = page.eval_on_selector_all(
            "[data-i18n]",
            """ns => ns.map(n => [n.dataset.i18n,
                                  n.dataset.i18nAttr ? n.getAttribute(n.dataset.i18nAttr)
                                                     : n.textContent])""",
        )
        assert len(labels) > 25
        assert [text for _, text in labels] == [ui[key] for key, _ in labels]
        assert page.inner_text("h1") == title and page.title() == title
        # and what the page wrote itself: the table, the log, the lists, the options
        assert drew in page.inner_text("#log")
        assert ui["logHuman"] in page.inner_text("#log")
        assert page.inner_text(".seat[data-seat='0'] .seat-head").startswith(
            ui["seatTitle"].format(seat=0)
        )
        assert page.locator("#bot-0 option[value=human]").inner_text() == ui["level.human"]
        assert page.locator("#viewer option[value=full]").inner_text() == ui["everything"]
        discard = ui["actDiscard"].split("{")[0].strip()
        assert page.locator("#actions li button", has_text=discard).count() > 0
        assert ui["scoreProvisional"] in page.inner_text("#score-kind")
        # no English word of the page is left over (the card table is the same cards)
        for word in (
            "Event log",
            "Legal actions",
            "Computer players",
            "draw from the stock",
            "by hand",
        ):
            assert word in english and word not in page.inner_text("body"), (lang, word)
        _shot(page, f"table-{lang}")
    page.select_option("#language", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.wait_for_function("document.querySelector('h1').innerText === 'Samba playground'")
    _same_origin(page, server.base_url)


def test_a_phone_screen_has_no_sideways_scroll_and_nothing_at_the_edge(browser, server):  # noqa: F811
    context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True)
    try:
        pg = context.new_page()
        pg.set_default_timeout(20_000)
        # on a phone the settings and the panels are folded, the developer tools off: all
        # opened here, to be measured
        pg.goto(server.base_url + "/playground")
        pg.wait_for_selector("#log li[data-kind='deal']", state="attached")
        pg.locator("#settings > summary").tap()
        pg.locator("#dev").tap()
        for fold in pg.eval_on_selector_all(
            "details.fold:not(#settings)", "ds => ds.map(d => d.id)"
        ):
            pg.locator(f"#{fold} > summary").tap()
        _deal(pg, server.base_url, "browser-phone-1", computers=(0, 2, 3))
        pg.locator("#actions li button").first.click()
        pg.wait_for_function(TURN_IS, arg=[1, "PLAY"])
        pg.locator("#actions li button", has_text="discard").first.click()
        pg.wait_for_function(
            "document.querySelector('#turn').dataset.seat === '1'"
            " && Number(document.querySelector('#turn').dataset.ply) > 2",
            timeout=60_000,
        )
        for lang in ("en", "es"):  # Spanish labels are the longest
            pg.select_option("#language", lang)
            pg.wait_for_function(f"document.documentElement.lang === '{lang}'")
            pg.wait_for_selector("#actions li button")
            widths = pg.evaluate(
                "[document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]"
            )
            assert widths[0] <= 360 and widths[1] <= 360, (lang, widths)
            # nothing sticks out (the lists and the score table scroll inside their panels)
            out = pg.evaluate(
                """() => [...document.querySelectorAll('body *')]
                   .filter(e => !e.closest('.scroll-x, #actions, #log'))
                   .filter(e => e.getClientRects().length)
                   .filter(e => { const r = e.getBoundingClientRect();
                                  return r.right > innerWidth + 0.5 || r.left < -0.5; })
                   .map(e => e.tagName + '#' + e.id + '.' + e.className)"""
            )
            assert out == [], (lang, out)
            # nothing flush against the window's edge: the computer players' row included
            for sel in ("header h1", "#controls label", "#bots label", "#table", "#log"):
                edges = pg.eval_on_selector_all(
                    sel,
                    "es => es.map(e => e.getBoundingClientRect()).map(r => [r.left, r.right])",
                )
                for left, right in edges:
                    assert left >= 8 and right <= 352, (lang, sel, left, right)
            _shot(pg, f"phone-{lang}")
    finally:
        context.close()


def test_the_favicon_is_served_and_cached(page, server):  # noqa: F811
    failed = []
    page.on("response", lambda r: failed.append((r.status, r.url)) if r.status >= 400 else None)
    page.goto(server.base_url + "/playground")
    page.wait_for_selector("#actions li button")
    answer = page.request.get(server.base_url + "/favicon.ico")
    assert answer.status == 200
    assert answer.headers["content-type"].startswith("image/svg+xml")
    assert "max-age=" in answer.headers["cache-control"]
    assert answer.body().lstrip().startswith(b"<svg")
    linked = page.eval_on_selector("link[rel=icon]", "l => l.href")
    assert linked == server.base_url + "/favicon.ico"
    assert failed == []
    # the other pages link it too
    page.goto(server.base_url + "/reference/rules.md")
    assert (
        page.eval_on_selector("link[rel=icon]", "l => l.href") == server.base_url + "/favicon.ico"
    )
    assert failed == []
