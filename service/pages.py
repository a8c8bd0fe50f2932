"""The gateway's human pages: Swagger UI at ``/docs``, ReDoc at ``/redoc``, and the
playground at ``/playground``, all served from this process: no page loads anything from
another site, so they work offline and behind a firewall.

Swagger UI and ReDoc come from the ``fastapi-offline`` distribution, which ships their
bundles as package data; the playground is the small HTML/JS/CSS set in
``service/playground/``.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
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
PLAYGROUND_PACKAGE = "samba_adjudicator.service"
#: The playground's own files (file name -> media type).
PLAYGROUND_FILES = {
    "playground.js": "text/javascript",
    "playground.css": "text/css",
}

SWAGGER_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Samba adjudicator - API docs</title>
<link rel="icon" type="image/png" href="/docs-assets/favicon.png">
<link rel="stylesheet" href="/docs-assets/swagger-ui.css">
</head>
<body>
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
</script>
</body>
</html>
"""

REDOC_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Samba adjudicator - API reference</title>
<link rel="icon" type="image/png" href="/docs-assets/favicon.png">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<div id="redoc"></div>
<script src="/docs-assets/redoc.standalone.js"></script>
<script>
Redoc.init("/openapi.json", {hideDownloadButton: false, expandResponses: "200"},
           document.getElementById("redoc"));
</script>
</body>
</html>
"""


#: URLs of other sites that a bundle would fetch by itself, and the local file served instead
#: (ReDoc's sidebar shows its maker's logo from their CDN).
LOCAL_INSTEAD = {b"https://cdn.redoc.ly/redoc/logo-mini.svg": b"/docs-assets/favicon.png"}


def _read(package: str, name: str) -> bytes:
    data = resources.files(package).joinpath(name).read_bytes()
    for remote, local in LOCAL_INSTEAD.items():
        data = data.replace(remote, local)
    return data


def router() -> APIRouter:
    """The pages and their assets; unknown asset names fall through to the gateway's 404."""
    pages = APIRouter(tags=["operations"])
    cache = "public, max-age=86400"

    @pages.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return HTMLResponse(SWAGGER_HTML)

    @pages.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return HTMLResponse(REDOC_HTML)

    @pages.get("/playground", include_in_schema=False)
    async def playground() -> HTMLResponse:
        return HTMLResponse(_read(PLAYGROUND_PACKAGE, "playground/index.html"))

    def add_files(prefix: str, files: dict[str, str], package: str, folder: str) -> None:
        for name, media_type in files.items():
            async def serve(name: str = name, media_type: str = media_type) -> Response:
                return Response(_read(package, folder + name), media_type=media_type,
                                headers={"cache-control": cache})
            pages.add_api_route(f"{prefix}/{name}", serve, methods=["GET"],
                                include_in_schema=False)

    add_files("/docs-assets", DOC_ASSETS, DOC_ASSETS_PACKAGE, "static/")
    add_files("/playground", PLAYGROUND_FILES, PLAYGROUND_PACKAGE, "playground/")
    return pages
