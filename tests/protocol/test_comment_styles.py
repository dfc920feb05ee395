"""Comment styles: the 39 keys, aliases, path defaults and the resolution order."""

from __future__ import annotations

import pytest

from jupyter_operator.protocol import (
    CommentStyle,
    OperatorError,
    StyleOverride,
    all_styles,
    codes,
    resolve_style,
    style_for_language,
    style_for_path,
)

# The reference implementation's mapping keys, group by group (its notes count 39; the groups
# they list hold 40 names, all kept here).
KEYS = [
    *["js", "ts", "jsx", "tsx", "java", "c", "cpp", "h", "hpp", "cs", "go", "rs", "swift"],
    *["kt", "kts", "scala", "groovy"],
    *["py", "rb", "pl", "sh", "ps1", "psm1", "psd1", "yaml", "yml", "toml", "ini", "cfg"],
    *["conf", "properties"],
    *["lua", "sql", "css", "scss", "less", "html", "xml", "svg", "md"],
]


def test_the_reference_keys_map_to_themselves() -> None:
    assert len(KEYS) == len(set(KEYS)) == 40
    for key in KEYS:
        style = style_for_language(key)
        assert style is not None
        assert style.language == key


@pytest.mark.parametrize(
    ("alias", "key"),
    [
        ("python", "py"),
        ("Python", "py"),
        ("typescript", "ts"),
        ("javascript", "js"),
        ("rust", "rs"),
        ("golang", "go"),
        ("ruby", "rb"),
        ("yml", "yml"),
        ("shell", "sh"),
        ("bash", "sh"),
        ("zsh", "sh"),
        ("c++", "cpp"),
        ("c#", "cs"),
        ("csharp", "cs"),
        ("kotlin", "kt"),
        ("markdown", "md"),
        ("powershell", "ps1"),
        ("dockerfile", "dockerfile"),
    ],
)
def test_aliases(alias: str, key: str) -> None:
    style = style_for_language(alias)
    assert style is not None
    assert style.language == key


@pytest.mark.parametrize("name", ["json", "cobol", "", "txt", "ipynb"])
def test_languages_without_comments_are_unknown(name: str) -> None:
    assert style_for_language(name) is None


def test_to_json_dict_exact_shapes() -> None:
    assert style_for_language("typescript").to_json_dict() == {  # type: ignore[union-attr]
        "language": "ts",
        "type": "line",
        "line_prefix": "//",
    }
    assert style_for_language("html").to_json_dict() == {  # type: ignore[union-attr]
        "language": "html",
        "type": "block",
        "block_start": "<!--",
        "block_end": "-->",
    }
    assert style_for_language("sql") == CommentStyle("sql", "line", line_prefix="--")
    assert style_for_language("css") == CommentStyle("css", "block", None, "/*", "*/")


def test_all_styles_sorted_by_language() -> None:
    styles = all_styles()
    names = [s.language for s in styles]
    assert names == sorted(names)
    assert set(names) == {*KEYS, "dockerfile"}


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a.py", "py"),
        ("src/App.TSX", "tsx"),
        ("Dockerfile", "dockerfile"),
        ("build/dockerfile", "dockerfile"),
        ("sub\\x.yaml", "yaml"),
        ("data.json", None),
        ("notebook.ipynb", None),
        ("Makefile", None),
        (".py", None),
        ("README", None),
    ],
)
def test_style_for_path(path: str, language: str | None) -> None:
    style = style_for_path(path)
    assert (style.language if style else None) == language


def test_resolve_style_order() -> None:
    assert resolve_style(None, "a.py").line_prefix == "#"
    both = StyleOverride(line_prefix=";", language="html")
    assert resolve_style(both, "a.py") == CommentStyle("custom", "line", line_prefix=";")
    block = resolve_style(StyleOverride(block_start="{-", block_end="-}"), "a.py")
    assert (block.type, block.block_start, block.block_end) == ("block", "{-", "-}")
    assert resolve_style(StyleOverride(language="html"), "a.py").language == "html"
    assert resolve_style(StyleOverride(), "x.md").language == "md"


def test_resolve_style_errors() -> None:
    with pytest.raises(OperatorError) as info:
        resolve_style(None, "data.unknownext")
    assert info.value.code == codes.ERR_COMMENT_STYLE_REQUIRED
    assert info.value.summary == (
        "Invalid OPERATOR_CMD (ERR_COMMENT_STYLE_REQUIRED): comment style not known for path;"
        " set comment_line_prefix or comment_block_start/comment_block_end."
    )
    with pytest.raises(OperatorError) as info:
        resolve_style(StyleOverride(language="json"), "a.json")
    assert info.value.code == codes.ERR_UNKNOWN_LANGUAGE
