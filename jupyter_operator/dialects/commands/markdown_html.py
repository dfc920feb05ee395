"""A document as HTML for a notebook, with nothing from the file able to run or reach out.

Markdown is rendered by mistune (which jupyter-server already brings through nbconvert) with
``escape=True``: raw HTML in the file is shown as text. Links keep their text and show their
address as text (no ``href`` is built from file content); images become ``[image: alt]``
(no request to a remote host). Other files are shown as escaped preformatted text.
"""

from __future__ import annotations

import html
from typing import Any

from .blocks import is_markdown
from .responses import visible

_RENDER: Any = None


def _markdown() -> Any:
    global _RENDER
    if _RENDER is None:
        import mistune

        class SafeRenderer(mistune.HTMLRenderer):
            def link(self, text: str, url: str, title: str | None = None) -> str:
                return f'{text} <span class="jpo-url">({html.escape(url)})</span>'

            def image(self, text: str, url: str, title: str | None = None) -> str:
                return f'<span class="jpo-image">[image: {text}]</span>'

        _RENDER = mistune.create_markdown(
            escape=True, renderer=SafeRenderer(escape=True),
            plugins=["strikethrough", "table", "task_lists"],
        )  # fmt: skip
    return _RENDER


def document_html(text: str, path: str) -> str:
    """``text`` (a whole document or one block of ``path``) as safe HTML."""
    shown = visible(text)
    if is_markdown(path) and not path.lower().endswith(".txt"):
        return f'<div class="jpo-doc">{_markdown()(shown)}</div>'
    return f'<pre class="jpo-doc">{html.escape(shown)}</pre>'
