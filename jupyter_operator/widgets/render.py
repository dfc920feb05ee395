"""Pure HTML builders for the approval cards: escaping, visible invisibles, coloured diffs.

Nothing here imports ipywidgets. Every string that comes from a model or a file goes through
:func:`escape` before it reaches HTML: the ipywidgets ``HTML`` view assigns ``innerHTML`` without
sanitising, so an unescaped ``<img onerror=...>`` in a file name would run in the page.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

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

#: Diff lines shown before the "Show all" toggle.
DIFF_PREVIEW_LINES = 80
#: Lines of a read's result shown in its card (the full text is in the results for the model).
DETAILS_PREVIEW_LINES = 200
#: A read's result longer than this many lines starts collapsed.
DETAILS_OPEN_LINES = 12


def _mark(match: re.Match[str]) -> str:
    code = f"U+{ord(match.group()):04X}"
    return f'<span class="jpo-invisible" title="invisible character {code}">&lt;{code}&gt;</span>'


#: Printable ASCII plus tab and newline: what needs no mark.
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n"


def has_invisible(text: str) -> bool:
    """True when ``text`` holds a bidi, zero-width or control character."""
    if text.isascii():  # the common case, ~50x faster than the regular expression
        return bool(text.encode("ascii").translate(None, _PLAIN_ASCII))
    return INVISIBLE.search(text) is not None


def diff_has_invisible(diff: str) -> bool:
    """Like :func:`has_invisible`, but the CR of CRLF line endings does not count."""
    if "\r" in diff:
        diff = diff.replace("\r\n", "\n")
    return has_invisible(diff)


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


def mark_code(char: str) -> str:
    """The visible mark of one invisible character."""
    code = f"U+{ord(char):04X}"
    return f'<span class="jpo-invisible" title="invisible character {code}">&lt;{code}&gt;</span>'


@dataclass(frozen=True)
class DiffHTML:
    """A rendered diff: ``html`` shows ``shown`` of ``total`` lines."""

    html: str
    shown: int
    total: int

    @property
    def truncated(self) -> bool:
        return self.shown < self.total


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only (never ``str.splitlines``, which also splits on U+2028 and FF)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def strip_cr(line: str) -> str:
    """Drop the one ``\r`` of a CRLF line ending (shown once as a note, not on every line)."""
    return line[:-1] if line.endswith("\r") else line


def render_diff(
    diff: str, *, max_lines: int | None = DIFF_PREVIEW_LINES, path: str | None = None
) -> DiffHTML:
    """A unified diff as numbered, syntax-coloured rows (see :mod:`.diff_html`).

    Only the first ``max_lines`` lines are rendered, so the cost of a card does not grow with
    the size of the diff (the full diff renders only when the person asks for it).
    """
    from .diff_html import diff_rows

    total = diff.count("\n") + (1 if diff and not diff.endswith("\n") else 0)
    head = diff.split("\n") if max_lines is None else diff.split("\n", max_lines)[:max_lines]
    shown = [strip_cr(line) for line in head[:total]]
    body = diff_rows(shown, path)
    if not body:
        body = '<span class="jpo-muted">(no textual change)</span>'
    return DiffHTML(html=f'<div class="jpo-diff">{body}</div>', shown=len(shown), total=total)


def render_text_block(text: str, *, max_lines: int = DETAILS_PREVIEW_LINES) -> tuple[str, int]:
    """A read result as an escaped ``<pre>``; returns the HTML and the number of lines."""
    lines = split_lines(text)
    shown = [strip_cr(line) for line in lines[:max_lines]]
    body = escape("\n".join(shown))
    if len(lines) > max_lines:
        more = len(lines) - max_lines
        body += (
            f'\n<span class="jpo-muted">... {more} more line{"s" * (more != 1)} not shown '
            "(the full text is in the results for the model)</span>"
        )
    return f'<pre class="jpo-text">{body}</pre>', len(lines)


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
.jpo-stat-add{color:var(--jp-success-color1,#2e7d32);font-weight:600}
.jpo-stat-del{color:var(--jp-error-color1,#c62828);font-weight:600}
.jpo-badge{border-radius:9px;padding:0 8px;font-size:0.85em;font-weight:600;
 color:var(--jp-ui-inverse-font-color1,#fff);background:var(--jp-inverse-layout-color3,#757575)}
.jpo-s-pending{background:var(--jp-warn-color1,#ef6c00)}
.jpo-s-waiting{background:var(--jp-warn-color2,#f0a040)}
.jpo-s-applied,.jpo-s-done{background:var(--jp-success-color1,#2e7d32)}
.jpo-s-rejected,.jpo-s-denied{background:var(--jp-inverse-layout-color3,#616161)}
.jpo-s-failed,.jpo-s-error,.jpo-s-stale{background:var(--jp-error-color1,#c62828)}
.jpo-note{margin:4px 0;white-space:pre-wrap}
.jpo-edit-text textarea{font-family:var(--jp-code-font-family,monospace);
font-size:var(--jp-code-font-size,13px)}
.jpo-warn{color:var(--jp-warn-color0,#b45309)}
.jpo-banner{padding:6px 10px;border-left:4px solid var(--jp-warn-color1,#ef6c00);border-radius:4px;
 background:rgba(239,108,0,0.12);font-weight:600}
.jpo-diff,.jpo-text{margin:6px 0 2px;padding:4px 0;overflow-x:auto;
 border:1px solid var(--jp-border-color2,#ddd);border-radius:4px;
 background:var(--jp-cell-editor-background,var(--jp-layout-color2,#f7f7f7));
 color:var(--jp-content-font-color1,#222);font-family:var(--jp-code-font-family,monospace);
 font-size:var(--jp-code-font-size,12.5px);line-height:1.45;tab-size:4}
.jpo-text{padding:6px 8px;white-space:pre}
.jpo-row{white-space:pre;min-width:max-content;display:flex}
.jpo-ln{display:inline-block;min-width:3.2em;padding:0 6px 0 0;text-align:right;
 color:var(--jp-ui-font-color3,#999);user-select:none;flex:none}
.jpo-sign{display:inline-block;width:1.4em;text-align:center;user-select:none;flex:none}
.jpo-code{padding-right:8px}
.jpo-add{background:rgba(46,160,67,0.18)}
.jpo-del{background:rgba(248,81,73,0.18)}
.jpo-add .jpo-sign{color:var(--jp-success-color1,#2e7d32)}
.jpo-del .jpo-sign{color:var(--jp-error-color1,#c62828)}
.jpo-fold,.jpo-meta{color:var(--jp-ui-font-color2,#777);padding:1px 8px;font-style:italic;
 background:var(--jp-layout-color3,rgba(127,127,127,0.12))}
.jpo-tk{color:var(--jp-mirror-editor-keyword-color,#008000);font-weight:600}
.jpo-ts{color:var(--jp-mirror-editor-string-color,#ba2121)}
.jpo-tc{color:var(--jp-mirror-editor-comment-color,#408080);font-style:italic}
.jpo-tm{color:var(--jp-mirror-editor-number-color,#080)}
.jpo-tf{color:var(--jp-mirror-editor-def-color,#00f)}
.jpo-tb{color:var(--jp-mirror-editor-builtin-color,#008000)}
.jpo-run{max-width:1100px}
.jpo-s-undone{background:var(--jp-inverse-layout-color3,#616161)}
.jpo-invisible{background:var(--jp-warn-color3,#ffe0b2);color:var(--jp-warn-color0,#8a4b00);
 border-radius:3px;padding:0 2px;font-size:0.85em}
.jpo-card details>summary{cursor:pointer;color:var(--jp-ui-font-color2,#666)}
.jpo-results-title{font-weight:600;margin-top:6px}
</style>"""
