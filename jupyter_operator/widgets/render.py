"""Escaping for the little HTML the notebook still writes itself (the agent's turns, the
static view of a saved run): visible invisibles.

Nothing here imports ipywidgets. Every string that comes from a model or a file goes through
:func:`escape` before it reaches HTML: the ipywidgets ``HTML`` view assigns ``innerHTML`` without
sanitising, so an unescaped ``<img onerror=...>`` in a file name would run in the page.
"""

from __future__ import annotations

import html
import re

# Characters that change how text reads without being visible (Trojan Source, CVE-2021-42574),
# plus C0/C1 controls other than tab and newline. They are shown as ``<U+XXXX>`` marks.
_INVISIBLE_CHARS = (
    "\u0000-\u0008\u000b-\u001f\u007f-\u009f"  # controls (tab and newline are kept)
    "\u00ad"  # soft hyphen
    "\u061c"  # Arabic letter mark
    "\u115f\u1160\u17b4\u17b5\u180e"  # fillers and invisible Khmer/Mongolian marks
    "\u200b-\u200f"  # zero-width space/joiners, LRM, RLM
    "\u2028-\u202e"  # line/paragraph separators, bidi embeddings and overrides
    "\u2060-\u206f"  # word joiner, invisible operators, bidi isolates
    "\u3164\ufe00-\ufe0f\ufeff\uffa0"  # Hangul filler, variation selectors, BOM, half-width filler
    "\U000e0000-\U000e007f"  # tag characters
    "\ue000\ue001"  # private use: U+E000 stands for invisibles while a diff is lexed
)
INVISIBLE = re.compile(f"[{_INVISIBLE_CHARS}]")

def _mark(match: re.Match[str]) -> str:
    code = f"U+{ord(match.group()):04X}"
    return f'<span class="jpo-invisible" title="invisible character {code}">&lt;{code}&gt;</span>'


def mark_invisible(escaped: str) -> str:
    """Replace invisible characters in already escaped HTML text with visible marks.

    Safe on escaped text because escaping never produces these characters.
    """
    return INVISIBLE.sub(_mark, escaped)


def visible(text: str) -> str:
    """Plain text with invisible characters spelled out as ``<U+XXXX>`` (for text/plain)."""
    return INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def escape(text: object) -> str:
    """Escape any value for HTML text or attribute context and make invisibles visible."""
    return mark_invisible(html.escape(str(text), quote=True))


# Colours: JupyterLab theme variables with fallbacks for Notebook 7 / VS Code / plain pages.
# The tints are translucent so they read on light and dark backgrounds alike.
STYLESHEET = """<style>
.jpo-card{border:1px solid var(--jp-border-color2,#d0d0d0);border-radius:6px;margin:4px 0;
 padding:6px 10px;background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#222);
 font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:var(--jp-ui-font-size1,13px)}
.jpo-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:8px;line-height:1.6}
.jpo-action{font-family:var(--jp-code-font-family,monospace);font-weight:600}
.jpo-path{font-family:var(--jp-code-font-family,monospace);word-break:break-all}
.jpo-id,.jpo-muted{color:var(--jp-ui-font-color2,#777);font-size:0.92em}
.jpo-badge{border-radius:9px;padding:0 8px;font-size:0.85em;font-weight:600;
 color:var(--jp-ui-inverse-font-color1,#fff);background:var(--jp-inverse-layout-color3,#757575)}
.jpo-s-pending{background:var(--jp-warn-color1,#ef6c00)}
.jpo-s-waiting{background:var(--jp-warn-color2,#f0a040)}
.jpo-s-applied,.jpo-s-done{background:var(--jp-success-color1,#2e7d32)}
.jpo-s-rejected,.jpo-s-denied{background:var(--jp-inverse-layout-color3,#616161)}
.jpo-s-failed,.jpo-s-error,.jpo-s-stale{background:var(--jp-error-color1,#c62828)}
.jpo-note{margin:4px 0;white-space:pre-wrap}
.jpo-warn{color:var(--jp-warn-color0,#b45309)}
.jpo-invisible{background:var(--jp-warn-color3,#ffe0b2);color:var(--jp-warn-color0,#8a4b00);
 border-radius:3px;padding:0 2px;font-size:0.85em}
</style>"""
