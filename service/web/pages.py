"""The gateway's human pages: Swagger UI at ``/docs``, ReDoc at ``/redoc``, the playground
at ``/playground`` and the project's documentation at ``/reference/<page>.md`` (the rules a
violation's ``rule`` names), all served from this process: no page loads anything from
another site, so they work offline and behind a firewall.

Swagger UI and ReDoc come from the ``fastapi-offline`` distribution, which ships their
bundles as package data; the playground is the small HTML/JS/CSS set in
``service/web/playground/``; the documentation is docs/*.md, installed as package data of
``samba_adjudicator.docs`` and rendered by ``markdown``.
"""

from __future__ import annotations

import functools
import html
import importlib.util
import json
import re
from importlib import resources
from pathlib import Path

import markdown
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

#: Third-party assets served under /docs-assets/ (file name -> media type).
DOC_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
DOC_ASSETS_PACKAGE = "fastapi_offline"
PLAYGROUND_PACKAGE = "samba_adjudicator.service.web"
#: The playground's own files (file name -> media type).
PLAYGROUND_FILES = {
    "playground.js": "text/javascript",
    "texts.js": "text/javascript",
    "cards.js": "text/javascript",
    "log.js": "text/javascript",
    "play.js": "text/javascript",
    "names.js": "text/javascript",
    "keep.js": "text/javascript",
    "recent.js": "text/javascript",
    "tools.js": "text/javascript",
    "playground.css": "text/css",
}
#: The site's icon, an SVG (browsers ask /favicon.ico of every page, whatever it links).
FAVICON = ("playground/favicon.svg", "image/svg+xml")


def html_page(title: str, head: str, body: str) -> str:
    """A page of the gateway: its assets come from /docs-assets/, never from another site."""
    return (
        f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title} - Samba adjudicator</title>\n"
        f'<link rel="icon" type="image/svg+xml" href="/favicon.ico">\n'
        f"{head}\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


SWAGGER_HTML = html_page(
    "API docs",
    '<link rel="stylesheet" href="/docs-assets/swagger-ui.css">',
    """\
<div id="swagger-ui"></div>
<script src="/docs-assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: true,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout"
});
</script>""",
)

REDOC_HTML = html_page(
    "API reference",
    "<style>body { margin: 0; padding: 0; }</style>",
    """\
<div id="redoc"></div>
<script src="/docs-assets/redoc.standalone.js"></script>
<script>
Redoc.init("/openapi.json", {hideDownloadButton: false, expandResponses: "200"},
           document.getElementById("redoc"));
</script>""",
)


#: URLs of other sites that a bundle would fetch by itself, and the local file served instead
#: (ReDoc's sidebar shows its maker's logo from their CDN).
LOCAL_INSTEAD = {b"https://cdn.redoc.ly/redoc/logo-mini.svg": b"/docs-assets/favicon.png"}


def _read(package: str, name: str) -> bytes:
    data = resources.files(package).joinpath(name).read_bytes()
    for remote, local in LOCAL_INSTEAD.items():
        data = data.replace(remote, local)
    return data


DOCS_PACKAGE = "samba_adjudicator.docs"
REFERENCE_STYLE = """<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 62em; margin: 0 auto; padding: 1em 2em;
       color: #1d2327; }
nav { margin-bottom: 1em; } nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: .5em 0; font-size: 14px; }
td, th { border: 1px solid #cfd8d2; padding: 2px 6px; vertical-align: top; }
th { background: #eef3ef; }
code { background: #f2f4f2; padding: 0 3px; border-radius: 3px; }
pre { background: #f2f4f2; padding: .6em; overflow: auto; }
p:has(:target) + h2, p:has(:target) + h3, p:has(:target) + h4 { background: #fff4c2; }
</style>"""
REFERENCE_NAV = """<nav><a href="/reference/rules.md">Rules</a><a href="/reference/api.md">API</a>
<a href="/playground">Playground</a><a href="/docs">Swagger UI</a></nav>"""


def _docs_dir() -> Path:
    """docs/ as installed. ``samba_adjudicator.docs`` is a namespace package (docs/ holds no
    Python), whose search path an editable install extends with a non-directory hook that
    ``importlib.resources`` cannot list on Python 3.11: take the real directory."""
    spec = importlib.util.find_spec(DOCS_PACKAGE)
    locations = (spec.submodule_search_locations or []) if spec else []
    return next(Path(p) for p in locations if Path(p).is_dir())


def reference_pages() -> list[str]:
    """The documentation pages served: every docs/*.md installed with the package."""
    return sorted(f.name for f in _docs_dir().glob("*.md"))


@functools.cache
def reference_html(name: str) -> str:
    text = (_docs_dir() / name).read_text(encoding="utf-8")
    body = markdown.markdown(
        text,
        extensions=["tables", "fenced_code", "toc"],
        extension_configs={"toc": {"slugify": github_slug}},
    )
    # a heading right after its explicit anchor (<a id="turn">) keeps one id, the anchor's
    explicit = set(re.findall(r'<a id="([^"]+)"></a>', body))
    body = re.sub(
        r'<(h[1-6]) id="([^"]+)">',
        lambda m: f"<{m.group(1)}>" if m.group(2) in explicit else m.group(0),
        body,
    )
    return html_page(html.escape(name), REFERENCE_STYLE, REFERENCE_NAV + "\n" + body)


def github_slug(heading: str, separator: str = "-") -> str:
    """GitHub's anchor for a heading, so links written for the repository work here too."""
    text = re.sub(r"<[^>]+>|[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", separator)


#: How long a browser keeps the pages' assets and the icon.
CACHE = "public, max-age=86400"


async def favicon() -> Response:
    """``/favicon.ico``: the playground's SVG icon, cached like the assets."""
    return Response(
        _read(PLAYGROUND_PACKAGE, FAVICON[0]),
        media_type=FAVICON[1],
        headers={"cache-control": CACHE},
    )


def router() -> APIRouter:
    """The pages and their assets; unknown asset names fall through to the gateway's 404."""
    pages = APIRouter(tags=["operations"])

    @pages.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return HTMLResponse(SWAGGER_HTML)

    @pages.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return HTMLResponse(REDOC_HTML)

    pages.add_api_route("/favicon.ico", favicon, methods=["GET"], include_in_schema=False)

    @pages.get("/playground", include_in_schema=False)
    async def playground() -> HTMLResponse:
        return HTMLResponse(_read(PLAYGROUND_PACKAGE, "playground/index.html"))

    @pages.get("/playground/texts.json", include_in_schema=False)
    async def playground_texts(request: Request) -> Response:
        """Event texts and score labels in the Accept-Language language (docs/i18n.md)."""
        from ..i18n.texts import page_texts

        lang = getattr(request.state, "lang", None) or "en"
        return Response(json.dumps(page_texts(lang)), media_type="application/json")

    for name in reference_pages():

        async def reference(name: str = name) -> HTMLResponse:
            return HTMLResponse(reference_html(name))

        pages.add_api_route(
            f"/reference/{name}", reference, methods=["GET"], include_in_schema=False
        )

    def add_files(prefix: str, files: dict[str, str], package: str, folder: str) -> None:
        for name, media_type in files.items():

            async def serve(name: str = name, media_type: str = media_type) -> Response:
                return Response(
                    _read(package, folder + name),
                    media_type=media_type,
                    headers={"cache-control": CACHE},
                )

            pages.add_api_route(f"{prefix}/{name}", serve, methods=["GET"], include_in_schema=False)

    add_files("/docs-assets", DOC_ASSETS, DOC_ASSETS_PACKAGE, "static/")
    add_files("/playground", PLAYGROUND_FILES, PLAYGROUND_PACKAGE, "playground/")
    return pages
