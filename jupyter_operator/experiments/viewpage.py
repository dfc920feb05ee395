"""The results viewer as one self-contained HTML file (``jupyter-operator view OUT``): inline
script and styles, no server, no network (the page's Content-Security-Policy allows none), so
a person can send it.

The page holds the viewer's data (``viewdata.load_view``) as JSON in two script elements: the
grid, read at once for the first paint, and the transcripts, read when a run is first opened.
The cards of a run are drawn by the notebook cards' own module (``static/widget.js``, the
same diff and cell views as the widget), embedded as base64 and imported from a blob URL only
then; a package built without its front end draws plain cards instead.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

ASSETS = Path(__file__).resolve().parent / "viewer"
#: Nothing may be fetched (a saved page that calls home would leak the results it holds), and
#: nothing may run but the page's own script, named by its hash (in place of ``%s``), and the
#: cards' module it imports from a blob URL: were a model's text ever to reach the page as
#: markup, its script and its ``onerror=`` would still not run.
CSP = ("default-src 'none'; script-src %s blob:; style-src 'unsafe-inline'; "
       "img-src data:; font-src data:")  # fmt: skip


@cache
def viewer_module() -> str:
    """The viewer's ES module (``viewer/viewer.js``: ``mount`` and anywidget's ``render``)."""
    return (ASSETS / "viewer.js").read_text(encoding="utf-8")


@cache
def viewer_stylesheet() -> str:
    """The viewer's own styles (``viewer/viewer.css``)."""
    return (ASSETS / "viewer.css").read_text(encoding="utf-8")


def script_json(value: Any) -> str:
    """``value`` as JSON that can sit inside a ``<script>`` element: ``<``, ``>`` and ``&``
    are escaped (a model's ``</script>`` stays text) and so is everything outside ASCII (a
    lone surrogate from a model's reply is never an encoding error)."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _inline(code: str) -> str:
    """Code for an inline element: it must not close its element early."""
    if "</script" in code.lower() or "</style" in code.lower():
        raise ValueError("inline code holds a closing tag")
    return code


# Runs before the transcripts and the cards' module are parsed (they follow it in the page):
# the grid paints first, and each is looked up when it is needed.
_BOOT = """
(() => {
  const data = JSON.parse(document.getElementById('jpo-data').textContent);
  const text = id => {
    const node = document.getElementById(id);
    return node ? node.textContent : '';
  };
  data.view = id => { const held = text('jpo-run-' + id); return held ? JSON.parse(held) : null; };
  mount(document.getElementById('jpo-app'), data, cardsFromText(() => text('jpo-cards').trim()));
})();
"""


def page_html(view: dict[str, Any], *, cards: bool = True) -> str:
    """The page for ``view`` (``load_view``'s dict). ``cards=False`` leaves out the cards'
    module (a smaller file: plain cards)."""
    from ..widgets import module

    grid = {key: value for key, value in view.items() if key != "runs"}
    grid["runs"] = [{k: v for k, v in run.items() if k != "view"} for run in view["runs"]]
    views = [run.get("view") for run in view["runs"]]
    source = module.source() if cards else ""
    cards_js = "" if not source or source == module._MISSING else source
    script = f"{_inline(viewer_module())}\n{_BOOT}"
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = CSP % f"'sha256-{digest}'"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Results: {_escape(view.get('title', ''))}</title>",
        f"<style>{_inline(module.stylesheet() if cards_js else '')}\n"
        f"{_inline(viewer_stylesheet())}\nbody{{margin:0}}</style>",
        '</head><body><div id="jpo-app"></div>',
        f'<script type="application/json" id="jpo-data">{script_json(grid)}</script>',
        f"<script>{script}</script>",
    ]
    # each run's transcript on its own: opening a run parses that run only
    parts += [f'<script type="application/json" id="jpo-run-{n}">{script_json(v)}</script>'
              for n, v in enumerate(views)]  # fmt: skip
    if cards_js:
        encoded = base64.b64encode(cards_js.encode("utf-8")).decode("ascii")
        parts.append(f'<script type="text/plain" id="jpo-cards">{encoded}</script>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _escape(text: Any) -> str:
    from ..widgets.render import escape

    return escape(text)
