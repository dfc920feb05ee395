"""The HTML the notebook still writes itself: everything untrusted is escaped, invisibles are
marked, and the static view of a saved run is small and made from the widget's state."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from support.replies import b64, block

from jupyter_operator.widgets.copybox import copy_script
from jupyter_operator.widgets.render import escape, visible
from jupyter_operator.widgets.static_view import DIFF_LINES, static_html

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(document.domain)>",
    '"><svg onload=alert(1)>',
    "</pre><style>body{display:none}</style>",
    "<!-- comment -->",
]


def tags(html: str) -> set[str]:
    """The element names that appear as real markup in ``html``."""
    return {m.lower() for m in re.findall(r"<\s*/?\s*([a-zA-Z][a-zA-Z0-9]*)", html)}


@pytest.mark.parametrize("text", HOSTILE)
def test_escape_leaves_no_markup(text: str) -> None:
    out = escape(text)
    assert "<" not in out and ">" not in out
    assert '"' not in out and "'" not in out


@pytest.mark.parametrize(
    ("char", "code"),
    [("\u202e", "U+202E"), ("\u200b", "U+200B"), ("\u2066", "U+2066"), ("\x1b", "U+001B"),
     ("\r", "U+000D"), ("\ufeff", "U+FEFF"), ("\U000e0041", "U+E0041")],
)  # fmt: skip
def test_invisible_characters_are_marked(char: str, code: str) -> None:
    text = f"admin{char}user"
    html = escape(text)
    assert char not in html
    assert f'title="invisible character {code}">&lt;{code}&gt;</span>' in html
    assert visible(text) == f"admin<{code}>user"


def test_placeholder_characters_cannot_forge_marks() -> None:
    html = escape("\ue000202E\ue001")
    assert "&lt;U+E000&gt;" in html and "&lt;U+E001&gt;" in html


def test_copy_script_cannot_close_the_script_element() -> None:
    script = copy_script("</script><script>alert(1)</script> & \u2028", clicked_ms=5)
    payload = script.split("var text = ", 1)[1].split(";\n", 1)[0]
    assert not set(payload) & set("<>&\u2028")
    assert payload.startswith('"\\u003c/script\\u003e')
    assert "<" not in script
    assert "Date.now() - 5 > 60000" in script


def _state(**item: object) -> dict[str, object]:
    base = {"id": "w1", "action": "fs.write", "path": "a.txt", "kind": "mutation",
            "status": "pending", "summary": "new file", "diff": None, "added": 0, "removed": 0,
            "details": None, "ok": None, "error_code": None, "rule_note": None}  # fmt: skip
    return {"title": "Operator", "notes": [], "warning": None, "items": [{**base, **item}],
            "results_text": "", "done": False, "dry_run": False}  # fmt: skip


@pytest.mark.parametrize("text", HOSTILE)
def test_the_static_view_escapes_every_field(text: str) -> None:
    state = _state(path=text, summary=text, details=text, diff=f"@@ -0,0 +1 @@\n+{text}\n",
                   rule_note=text, foreign={"family_name": text, "name": text})  # fmt: skip
    state["notes"] = [text]
    html = static_html(state)
    assert tags(html) <= {"style", "div", "b", "span", "pre", "details", "summary"}
    assert html.count("<style>") == 1
    # A notebook change is drawn as cells: every field of them is escaped too.
    entry = {"status": text, "old_index": 0, "new_index": 0, "id": text, "old_id": text,
             "cell_type": text, "old_cell_type": text, "source_diff": f"@@ -1 +1 @@\n+{text}\n",
             "outputs": text, "metadata": text, "execution_count": [1, 2]}  # fmt: skip
    cells = {"old_format": text, "new_format": "4.5", "metadata": text,
             "counts": {"changed": 1}, "cells": [entry]}  # fmt: skip
    html = static_html(_state(path="nb.ipynb", diff="{}", cells=cells))
    assert tags(html) <= {"style", "div", "b", "span", "pre", "details", "summary"}


def test_the_static_card_of_a_notebook_change_shows_cells_not_json(tmp_path: Path) -> None:
    # What nbviewer, GitHub or a page without the widget show of a notebook change.
    from jupyter_operator.engine import Operator
    from jupyter_operator.widgets.run_widget import RunWidget

    def notebook(middle: str, *more: str) -> str:
        cells = [new_code_cell("import math", id="a"), new_code_cell(middle, id="b"),
                 new_markdown_cell("# End", id="c")]  # fmt: skip
        cells += [new_code_cell(source, id=f"n{i}") for i, source in enumerate(more)]
        return nbformat.writes(new_notebook(cells=cells))

    (tmp_path / "nb.ipynb").write_text(notebook("print(1)"))
    changed = notebook("print(2)\nx = 1", "y = 2")
    reply = block("w1", "fs.write", path="nb.ipynb", content_b64=b64(changed))
    with Operator(tmp_path) as op:
        widget = RunWidget(op.run(reply))
        html = widget._repr_mimebundle_()[0]["text/html"]
    assert "1 changed, 1 added · 2 unchanged" in html
    assert "<b>changed</b> · index 1 · code · id b" in html
    assert "-print(1)\n+print(2)\n+x = 1" in html
    assert '"cell_type"' not in html and "&quot;cell_type&quot;" not in html  # no notebook JSON
    # The change is counted in the cells' source lines, not in lines of notebook JSON.
    assert widget.engine_run.item("w1").summary.endswith("+3 -1 lines")


def test_the_static_view_keeps_the_start_of_a_long_diff_and_the_results() -> None:
    diff = "@@ -0,0 +1,500 @@\n" + "".join(f"+line {i}\n" for i in range(500))
    state = _state(diff=diff, status="applied", added=500)
    state.update(done=True, results_text="OPERATOR_RESULT\nid: w1\nok: true\nEND_OPERATOR_RESULT")
    html = static_html(state)
    assert f"line {DIFF_LINES - 2}" in html and f"line {DIFF_LINES}\n" not in html
    assert f"{501 - DIFF_LINES} more lines" in html
    assert "[Applied]" in html and "+500" in html and "id: w1" in html
    # A dry run's results are never offered as if for the model.
    state["dry_run"] = True
    assert "id: w1" not in static_html(state)


def test_an_invalid_block_is_named_as_a_block_with_its_line(tmp_path: Path) -> None:
    from jupyter_operator.engine import Operator
    from jupyter_operator.widgets.run_state import text_listing

    with Operator(tmp_path) as op:
        run = op.run("Writing.\n" + block("w1", "fs.write", path="a.txt"))
    listing = text_listing(run)
    assert "  [Invalid] block w1 (line 2): fs.write requires content or content_b64." in listing
    assert "invalid (" not in listing and "invalid  (" not in listing
    html = static_html({"title": "Operator", "items": [run.items[0].to_dict()]})
    assert '<b>[Invalid]</b> <span class="jpo-action">block</span>' in html


def test_the_static_card_of_a_cell_read_shows_the_cells(tmp_path: Path) -> None:
    from jupyter_operator.engine import Operator
    from jupyter_operator.widgets.run_widget import RunWidget

    cells = [new_markdown_cell("# <b>Analysis</b>", id="title"),
             new_code_cell("data = [3, 1, 2]", id="load")]  # fmt: skip
    (tmp_path / "nb.ipynb").write_text(nbformat.writes(new_notebook(cells=cells)))
    with Operator(tmp_path, extensions=("nb",)) as op:
        run = op.run(block("r1", "nb.readCells", notebook="nb.ipynb"))
        html = RunWidget(run)._repr_mimebundle_()[0]["text/html"]
    assert "index 0 · markdown · id title" in html and "# &lt;b&gt;Analysis&lt;/b&gt;" in html
    assert "index 1 · code · id load" in html and "data = [3, 1, 2]" in html
    assert "cell_count" not in html  # the model's JSON is not what a reader is shown
    assert tags(html) <= {"style", "div", "b", "span", "pre", "details", "summary"}

