"""The HTML builders: everything untrusted is escaped, invisibles are marked, diffs truncate."""

from __future__ import annotations

import re

import pytest
from ipython_fixtures import diff_text

from jupyter_operator.widgets.copybox import copy_script
from jupyter_operator.widgets.render import (
    escape,
    has_invisible,
    render_diff,
    render_text_block,
)

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


@pytest.mark.parametrize("text", HOSTILE)
def test_diff_content_renders_as_text(text: str) -> None:
    diff = f"--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-{text}\n+{text} again\n"
    html = render_diff(diff).html
    # Only our own element types survive; the hostile ones appear escaped.
    assert tags(html) <= {"div", "span"}
    assert "&lt;" in html


def test_diff_rows_are_numbered_and_tinted_by_kind() -> None:
    html = render_diff("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n same\n-old\n+new\n").html
    assert "--- a/x" not in html and "+++ b/x" not in html and "@@" not in html
    ln = '<span class="jpo-ln">{}</span>'
    assert (f'<div class="jpo-row jpo-ctx">{ln.format(1)}{ln.format(1)}') in html
    assert (f'<div class="jpo-row jpo-del">{ln.format(2)}{ln.format("")}') in html
    assert (f'<div class="jpo-row jpo-add">{ln.format("")}{ln.format(2)}') in html
    assert diff_text(html) == " same\n-old\n+new"


def test_unchanged_lines_between_hunks_are_folded() -> None:
    diff = "@@ -10,2 +10,2 @@\n a\n-b\n+B\n@@ -40,1 +40,1 @@\n-c\n+C\n"
    html = render_diff(diff).html
    assert "9 unchanged lines" in html  # lines 1-9 before the first hunk
    assert "28 unchanged lines" in html  # lines 12-39 between the hunks
    assert '<span class="jpo-ln">40</span>' in html


def test_code_is_coloured_by_the_lexer_for_the_path() -> None:
    diff = "@@ -0,0 +1,2 @@\n+def f():\n+    return 'x'  # done\n"
    html = render_diff(diff, path="pkg/mod.py").html
    assert '<span class="jpo-tk">def</span>' in html
    assert '<span class="jpo-ts">&#x27;x&#x27;</span>' in html
    assert "jpo-tc" in html
    plain = render_diff(diff, path="notes.txt").html
    assert "jpo-tk" not in plain


def test_a_python_string_over_several_lines_stays_a_string() -> None:
    diff = '@@ -0,0 +1,3 @@\n+x = """\n+def not_code\n+"""\n'
    html = render_diff(diff, path="a.py").html
    assert '<span class="jpo-tk">def</span>' not in html


@pytest.mark.parametrize(
    ("char", "code"),
    [("\u202e", "U+202E"), ("\u200b", "U+200B"), ("\u2066", "U+2066"), ("\x1b", "U+001B"),
     ("\r", "U+000D"), ("\ufeff", "U+FEFF"), ("\U000e0041", "U+E0041")],
)  # fmt: skip
def test_invisible_characters_are_marked_in_diffs_and_text(char: str, code: str) -> None:
    text = f"admin{char}user"
    diff = f"@@ -1 +1 @@\n+{text}\n"
    for html in (render_diff(diff).html, escape(text), render_text_block(text)[0]):
        assert char not in html
        mark = f'title="invisible character {code}">&lt;{code}&gt;</span>'
        assert mark in html
    assert has_invisible(text)


def test_placeholder_characters_in_content_cannot_forge_marks() -> None:
    # render_diff uses U+E000/U+E001 internally; content holding them is marked, not decoded.
    html = render_diff("@@ -1 +1 @@\n+\ue000202E\ue001\n").html
    assert "&lt;U+E000&gt;" in html and "&lt;U+E001&gt;" in html
    assert "&lt;U+202E&gt;" not in html


def test_crlf_line_endings_are_not_marked_on_every_line() -> None:
    html = render_diff("@@ -1,2 +1,2 @@\r\n-a\r\n+b\r\n").html
    assert "U+000D" not in html
    assert diff_text(html) == "-a\n+b"


def test_plain_text_is_not_flagged() -> None:
    assert not has_invisible("tab\tand newline\n and unicode é ü 漢字")


def test_long_diff_is_truncated_and_full_on_request() -> None:
    diff = "@@ -0,0 +1,1000 @@\n" + "".join(f"+line {i}\n" for i in range(1000))
    short = render_diff(diff, max_lines=50)
    assert short.truncated and short.shown == 50 and short.total == 1001
    assert "line 48" in short.html and "line 49" not in short.html
    full = render_diff(diff, max_lines=None)
    assert not full.truncated and "line 999" in full.html


def test_empty_diff_says_so() -> None:
    assert "no textual change" in render_diff("").html


def test_text_block_escapes_and_truncates() -> None:
    html, count = render_text_block("".join(f"<b>{i}</b>\n" for i in range(300)), max_lines=10)
    assert count == 300
    assert "<b>" not in html and "&lt;b&gt;9&lt;/b&gt;" in html and "&lt;b&gt;10&lt;" not in html
    assert "290 more lines not shown" in html


def test_copy_script_cannot_close_the_script_element() -> None:
    script = copy_script("</script><script>alert(1)</script> & \u2028", clicked_ms=5)
    payload = script.split("var text = ", 1)[1].split(";\n", 1)[0]
    assert not set(payload) & set("<>&\u2028")
    assert payload.startswith('"\\u003c/script\\u003e')
    assert "<" not in script
    assert "Date.now() - 5 > 60000" in script


@pytest.mark.parametrize(
    ("text", "expected"),
    [("plain ascii\twith tab\n", False), ("bell\x07", True), ("esc\x1b[31m", True),
     ("del\x7f", True), ("lone\rcr", True), ("caf\u00e9", False), ("rlo\u202e", True),
     ("zwsp\u200b", True)],
)  # fmt: skip
def test_has_invisible_ascii_fast_path_agrees_with_the_pattern(text: str, expected: bool) -> None:
    from jupyter_operator.widgets.render import INVISIBLE

    assert has_invisible(text) is expected
    assert (INVISIBLE.search(text) is not None) is expected


def test_diff_invisible_ignores_crlf_but_not_a_lone_cr() -> None:
    from jupyter_operator.widgets.render import diff_has_invisible

    assert not diff_has_invisible("@@ -1 +1 @@\r\n-a\r\n+b\r\n")
    assert diff_has_invisible("@@ -1 +1 @@\r\n+a\rb\r\n")


def test_truncation_counts_lines_without_a_final_newline() -> None:
    assert render_diff("+a\n+b", max_lines=1).total == 2
    assert render_diff("+a\n+b\n", max_lines=5).shown == 2


def test_visible_spells_out_invisibles_for_plain_text() -> None:
    from jupyter_operator.widgets.render import visible

    assert visible("report\u202etxt.py\x1b") == "report<U+202E>txt.py<U+001B>"
    assert visible("plain <b>text</b>\n") == "plain <b>text</b>\n"


def test_very_long_lines_are_shown_uncoloured() -> None:
    long_line = "x = 1; " * 1000
    html = render_diff(f"@@ -0,0 +1 @@\n+{long_line}\n", path="min.py").html
    assert "jpo-tm" not in html and "x = 1; x = 1;" in html
    assert "jpo-tm" in render_diff("@@ -0,0 +1 @@\n+x = 1\n", path="min.py").html
