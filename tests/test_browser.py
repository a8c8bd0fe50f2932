"""/docs and /playground in a real browser: headless Chromium (the system's, /usr/bin/chromium)
driven by Playwright, against a real server on a loopback port.

Every request the pages make is recorded: none may leave the server's origin. Screenshots
land in test-output/browser/ (git-ignored) for a human to look at.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from service_fixtures import ROOT, ServerProcess, server  # noqa: F401

# real servers, and a browser: a tool of the machine (`make test-fast` leaves these out)
pytestmark = [pytest.mark.servers, pytest.mark.tools]

CHROMIUM = os.environ.get("SAMBA_TEST_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "test-output" / "browser"

playwright_sync = pytest.importorskip("playwright.sync_api")
if not shutil.which(CHROMIUM):
    pytest.fail(
        f"no Chromium at {CHROMIUM}: `make test` installs it (apt-get install chromium)",
        pytrace=False,
    )


@pytest.fixture(scope="module")
def browser():
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        yield b
        b.close()


@pytest.fixture()
def page(browser, server):  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.requests_seen = []
    pg.on("request", lambda r: pg.requests_seen.append(r.url))
    pg.console_errors = []
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    pg.set_default_timeout(20_000)
    yield pg
    context.close()


#: The turn shown is seat arg[0]'s, phase arg[1] (DRAW, PLAY or OVER): the page's #turn says
#: them as data, whatever the language.
TURN_IS = (
    "([seat, phase]) => document.querySelector('#turn').dataset.seat === String(seat)"
    " && document.querySelector('#turn').dataset.phase === phase"
)


def _turn(pg) -> tuple[int, str]:
    data = pg.eval_on_selector("#turn", "t => [t.dataset.seat, t.dataset.phase]")
    return int(data[0]), data[1]


def _shot(pg, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _same_origin(pg, base: str) -> None:
    # blob: URLs are the page's own (ReDoc starts its search worker from one)
    foreign = [
        u
        for u in pg.requests_seen
        if not u.startswith(base + "/") and not u.startswith(f"blob:{base}/")
    ]
    assert foreign == []
    assert pg.console_errors == []


def test_swagger_ui_renders_every_route_offline_with_a_valid_example(page, server):  # noqa: F811
    page.goto(server.base_url + "/docs")
    page.wait_for_selector("#operations-deals-Deal")
    for path in (
        "/v1/deals:deal",
        "/v1/actions:validate",
        "/v1/actions:apply",
        "/v1/melds:check",
        "/v1/rulesets/{profile}",
    ):
        assert page.get_by_text(path, exact=True).count() >= 1, path
    page.locator("#operations-deals-Deal .opblock-summary").first.click()
    # "Try it out" is on from the start (tryItOutEnabled): the example is already editable
    body = page.locator("#operations-deals-Deal textarea.body-param__text").input_value()
    assert json.loads(body)["ruleset"]["profile"] == "classic"  # not "string"
    page.locator("#operations-deals-Deal button.execute").click()
    live_status = "#operations-deals-Deal .live-responses-table tbody .response-col_status"
    page.wait_for_selector(live_status)
    status = page.locator(live_status).first
    assert status.inner_text().strip().startswith("200")
    _shot(page, "docs")
    _same_origin(page, server.base_url)


def test_redoc_renders_offline(page, server):  # noqa: F811
    page.goto(server.base_url + "/redoc")
    page.wait_for_function("document.body.innerText.includes('Shuffle and deal a new deal.')")
    assert page.locator("h2", has_text="Shuffle and deal a new deal.").count() >= 1
    _shot(page, "redoc")
    _same_origin(page, server.base_url)


def test_playground_deals_plays_and_explains(page, server):  # noqa: F811
    page.goto(server.base_url + "/playground")
    page.select_option("#profile", "classic")
    page.select_option("#players", "4")
    page.fill("#seed", "browser-test-1")
    page.click("#deal")
    page.wait_for_selector("#actions li button")
    assert page.locator("#seats .seat").count() == 4
    assert page.locator("#sides .side").count() == 2
    assert _turn(page) == (1, "DRAW")
    assert "not frozen" in page.inner_text("#pile") or "frozen" in page.inner_text("#pile")
    _shot(page, "playground-dealt")

    # the first legal action is the draw: apply it by clicking
    first = page.locator("#actions li button").first
    assert "draw from the stock" in first.inner_text()
    first.click()
    page.wait_for_function(TURN_IS, arg=[1, "PLAY"])
    assert page.locator("#log li[data-event='CARDS_DRAWN']").count() == 1
    assert page.locator(".seat[data-seat='1']").inner_text().count("\n") >= 1

    # discard through the list: the turn passes to seat 2
    page.locator("#actions li button", has_text="discard").first.click()
    page.wait_for_function(TURN_IS, arg=[2, "DRAW"])
    assert page.locator("#log li[data-event='DISCARDED']").count() == 1

    # an illegal action typed by hand: seat 0 is not to move
    page.fill("#action-json", json.dumps({"seat": 0, "drawStock": {}}))
    page.click("#validate")
    page.wait_for_selector("#verdict .illegal")
    violation = page.locator("#verdict .violation").first
    assert "NOT_YOUR_TURN" in violation.inner_text()
    assert violation.locator("a").inner_text() == "docs/rules.md#turn"
    assert violation.locator("a").get_attribute("href") == "/reference/rules.md#turn"
    _shot(page, "playground-illegal")

    # the itemised score is shown (provisional while the deal goes on)
    assert page.locator("#score tr[data-term='dealTotal'] td").count() == 2
    assert "provisional" in page.inner_text("#score-kind")

    # view as one seat: the other hands are face down
    page.select_option("#viewer", "2")
    page.wait_for_function("document.querySelectorAll('.seat .card.back').length > 0")
    assert page.locator(".seat[data-seat='2'] .card.back").count() == 0
    assert page.locator(".seat[data-seat='0'] .card.back").count() > 0
    # the score would count the hidden hands: it is withdrawn (rendered after the table)
    page.wait_for_function("document.querySelector('#score-kind').innerText.includes('hidden')")
    assert page.locator("#score tr").count() == 0
    _shot(page, "playground-seat-view")

    # paste a snapshot: the current one, then inspect it
    page.select_option("#viewer", "full")
    page.click("#copy")
    pasted = json.loads(page.input_value("#snapshot-json"))
    page.fill("#snapshot-json", json.dumps({"snapshot": pasted}))
    page.click("#inspect")
    page.wait_for_selector("#actions li button")
    assert _turn(page) == (2, "DRAW")
    # a broken paste is refused with the service's field paths
    page.fill("#snapshot-json", json.dumps({**pasted, "stockCount": 3}))
    page.click("#inspect")
    page.wait_for_selector("#error:not([hidden])")
    assert "INVALID_ARGUMENT" in page.inner_text("#error")
    _same_origin(page, server.base_url)


def test_playground_verdict_is_about_the_action_judged_and_highlights_the_awaited_seat(
    page,
    server,  # noqa: F811
):
    page.goto(server.base_url + "/playground")
    page.select_option("#players", "4")
    page.fill("#seed", "browser-verdict")
    page.click("#deal")
    page.wait_for_selector("#actions li button")
    # an action applied from the list: the verdict says so and names it
    page.locator("#actions li button").first.click()
    page.wait_for_function(TURN_IS, arg=[1, "PLAY"])
    assert page.inner_text("#verdict") == "legal · applied: seat 1: draw from the stock"
    # an error (the typed action is not JSON) leaves no verdict standing
    page.fill("#action-json", "{not json")
    page.click("#validate")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#verdict") == ""
    # a validated action: its own verdict
    page.fill("#action-json", json.dumps({"seat": 0, "drawStock": {}}))
    page.click("#validate")
    page.wait_for_selector("#verdict .illegal")
    assert "validated: seat 0: draw from the stock" in page.inner_text("#verdict")
    # "may I go out?": the partner is awaited, and highlighted, not the asker
    page.locator("#actions li button", has_text="may I go out").first.click()
    page.wait_for_function("document.querySelector('#turn').dataset.goOut === 'ASKED'")
    assert "waiting for seat 3" in page.inner_text("#turn")
    assert [
        page.locator(".seat").nth(i).get_attribute("data-seat")
        for i in range(4)
        if "to-move" in (page.locator(".seat").nth(i).get_attribute("class") or "")
    ] == ["3"]
    _same_origin(page, server.base_url)


def test_a_violation_link_opens_its_rule(page, server):  # noqa: F811
    page.goto(server.base_url + "/reference/rules.md#turn")
    heading = page.locator("p:has(#turn) + h3")  # markdown wraps the anchor in a <p>
    assert heading.inner_text() == "Turn"
    assert heading.is_visible()
    assert page.locator("table").count() > 5  # the parameter table and others, rendered
    _shot(page, "reference-rules")
    _same_origin(page, server.base_url)


def test_playground_shows_canastas_sambas_and_a_frozen_pile(page, server):  # noqa: F811
    """A position built for the purpose (side 0 holds a canasta and a samba, a wild in the
    pile freezes it in classic), pasted into the page, then a meld played by clicking."""
    from builders import make_snapshot

    from samba_adjudicator.service.codec import convert, jsonio

    snap = make_snapshot(
        "classic",
        4,
        hands={0: "5C 5S 5D 9C JC QD"},
        melds={0: ["KH KS KD KC KH KS KD", "4H 5H 6H 7H 8H 9H 10H"]},
        discard="6C 2S 8D",
        turn_seat=0,
    )
    pasted = jsonio.to_dict(convert.snapshot_to_proto(snap))
    page.goto(server.base_url + "/playground")
    page.wait_for_selector("#actions li button")
    page.fill("#snapshot-json", json.dumps(pasted))
    page.click("#inspect")
    page.wait_for_function(TURN_IS, arg=[0, "PLAY"])
    side0 = page.locator(".side[data-side='0']")
    assert side0.locator(".badge.CANASTA").count() == 1
    assert side0.locator(".badge.SAMBA").count() == 1
    assert "frozen for side 0, side 1" in page.inner_text("#pile")
    page.locator("#actions li button", has_text="meld 5♠ 5♦ 5♣").first.click()
    page.wait_for_function("document.querySelectorAll(\".side[data-side='0'] .meld\").length == 3")
    assert page.locator("#log li[data-event='MELD_CREATED']").count() == 1
    assert page.locator("#score tr[data-term='canastaBonus'] td").first.inner_text() == "500"
    assert page.locator("#score tr[data-term='sambaBonus'] td").first.inner_text() == "1500"
    _shot(page, "playground-canasta-samba")
    _same_origin(page, server.base_url)


# -- a page on another origin (CORS) -------------------------------------------------------

_CALLER = """<!doctype html><meta charset="utf-8"><title>game</title><script>
window.outcome = fetch(new URLSearchParams(location.search).get("api") + "/v1/actions:validate", {
  method: "POST", headers: {"content-type": "application/json", "x-request-id": "from-page"},
  body: JSON.stringify({snapshot: {}, action: {seat: 0, askGoOut: {}}}),
}).then(async r => ({status: r.status, requestId: r.headers.get("x-request-id"),
                      reason: (await r.json()).error.details[0].reason}),
        e => ({failed: String(e)}));
</script>"""


@pytest.fixture()
def game_origin():
    """A page on its own loopback origin, as a game's frontend would be."""
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the handler's name is the HTTP method)
            body = _CALLER.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _call_from(browser, origin: str, api: str) -> dict:
    context = browser.new_context()
    try:
        pg = context.new_page()
        pg.goto(f"{origin}/?api={api}")
        return pg.evaluate("window.outcome")
    finally:
        context.close()


def test_a_page_on_a_configured_origin_calls_the_gateway(browser, game_origin):
    """With its origin in --cors-origins, the page's preflighted POST reaches the gateway and
    the page reads the answer (a 400 for the empty snapshot) and the exposed request id."""
    srv = ServerProcess("--cors-origins", game_origin)
    try:
        outcome = _call_from(browser, game_origin, srv.base_url)
    finally:
        srv.close()
    assert outcome == {"status": 400, "requestId": "from-page", "reason": "INVALID_REQUEST"}


def test_a_page_on_another_origin_cannot_call_the_gateway_by_default(browser, game_origin, server):  # noqa: F811
    outcome = _call_from(browser, game_origin, server.base_url)
    assert "failed" in outcome, outcome


def test_playground_language_selector_speaks_spanish(page, server):  # noqa: F811
    """docs/i18n.md: the selector sends Accept-Language; violations, events and score labels
    come back in that language, codes unchanged."""
    page.goto(server.base_url + "/playground")
    page.select_option("#profile", "classic")
    page.select_option("#players", "4")
    page.fill("#seed", "browser-test-1")
    page.click("#deal")
    page.wait_for_selector("#actions li button")
    page.select_option("#language", "es")
    page.wait_for_function("document.documentElement.lang === 'es'")
    page.wait_for_selector("#actions li button")
    page.locator("#actions li button").first.click()  # the draw
    page.wait_for_function("document.querySelector('#log').innerText.includes('robó del mazo')")
    assert page.locator("#log li[data-event='CARDS_DRAWN']").count() == 1
    assert page.locator("#score tr[data-term='dealTotal'] th").inner_text() == "total de la mano"
    page.fill("#action-json", json.dumps({"seat": 0, "drawStock": {}}))
    page.click("#validate")
    page.wait_for_selector("#verdict .violation")
    violation = page.locator("#verdict .violation").first.inner_text()
    assert "NOT_YOUR_TURN" in violation and "es el turno del asiento 1" in violation
    _shot(page, "playground-spanish")
