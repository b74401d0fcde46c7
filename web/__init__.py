"""The judge's web view (issue 28): a phone-first page served by `tmg serve` at `/` that draws
the table with the renderer of `tmg render` (the service's `/render` SVG) and asks every
question of the service's command endpoints. `web.routes.router` is included in the service's
app; the page, its script and styles are static files shipped in `web/static/`.
"""

from __future__ import annotations

from .routes import router

__all__ = ["router"]
