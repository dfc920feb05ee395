"""Path globs of policy rules: ``**`` crosses folders, ``*`` does not, dot names, case, ``..``."""

from __future__ import annotations

import pytest

from jupyter_operator.engine.globs import GlobError, compile_glob, normalise_path


def matches(glob: str, path: str) -> bool:
    return compile_glob(glob).matches(normalise_path(path))


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        # ** crosses folders, including none at all.
        ("notes/**", "notes/a.md", True),
        ("notes/**", "notes/deep/er/a.md", True),
        ("notes/**", "notes", True),  # the folder itself (a delete of it is covered)
        ("notes/**", "notesx/a.md", False),
        ("notes/**", "other/notes/a.md", False),
        ("**/*.ipynb", "a.ipynb", True),
        ("**/*.ipynb", "x/y/a.ipynb", True),
        ("**/*.ipynb", "x/y/a.ipynb.bak", False),
        ("a/**/b.txt", "a/b.txt", True),
        ("a/**/b.txt", "a/x/y/b.txt", True),
        ("a/**/b.txt", "a/x/y/c.txt", False),
        ("**", "anything/at/all.txt", True),
        # * and ? stay within one name.
        ("*.md", "a.md", True),
        ("*.md", "notes/a.md", False),
        ("notes/*", "notes/a.md", True),
        ("notes/*", "notes/sub/a.md", False),
        ("notes/?.md", "notes/a.md", True),
        ("notes/?.md", "notes/ab.md", False),
        ("data/[ab]*.csv", "data/b1.csv", True),
        ("data/[!ab]*.csv", "data/b1.csv", False),
        ("data/[!ab]*.csv", "data/c1.csv", True),
        # Dot names: only written out, or through **.
        ("*", ".env", False),
        ("*", "env", True),
        ("notes/*", "notes/.secret", False),
        ("notes/?secret", "notes/.secret", False),
        ("notes/[.]secret", "notes/.secret", False),
        ("**/*.py", ".hidden/x.py", True),  # ** walks into a dot folder
        ("**/*", ".env", False),  # but the final * still does not match a dot name
        ("**", ".env", True),
        ("notes/**", "notes/.git-like/x", True),
        (".env", ".env", True),
        ("**/.*", "a/.env", True),
        (".github/**", ".github/workflows/ci.yml", True),
        ("*.env", "a.env", True),
        # Case-sensitive, character for character.
        ("Notes/**", "notes/a.md", False),
        ("notes/**", "Notes/a.md", False),
        ("*.MD", "a.md", False),
        # Paths are normalised before matching.
        ("notes/**", "./notes//a.md", True),
        ("notes/a.md", "notes\\a.md", True),
        # A path the workspace refuses has no normal form: no glob but ** matches it, and the
        # policy lets only deny rules see it (tests/engine/test_rules.py).
        ("notes/**", "../notes/x", False),
        ("notes/**", "notes/../../x", False),
        ("*", "/etc/passwd", False),
        ("*/x", "~/x", False),
    ],
)
def test_glob_semantics(glob: str, path: str, expected: bool) -> None:
    assert matches(glob, path) is expected


def test_globs_are_normalised() -> None:
    assert compile_glob("./notes//").text == "notes/**"
    assert compile_glob("a/**/**/b").text == "a/**/b"
    assert compile_glob("notes\\*.md").text == "notes/*.md"
    assert compile_glob(".").text == "**"


@pytest.mark.parametrize(
    ("glob", "reason"),
    [
        ("../x/**", "'..' would leave the workspace"),
        ("a/../../b", "'..' would leave the workspace"),
        ("/etc/**", "relative to the workspace"),
        ("~/x", "relative to the workspace"),
        ("a**", "whole path part"),
        ("**b/c", "whole path part"),
        ("[z-a]", "bad character set"),
        ("", "empty"),
    ],
)
def test_bad_globs_are_errors(glob: str, reason: str) -> None:
    with pytest.raises(GlobError, match=reason):
        compile_glob(glob)


def test_no_path_matches_only_the_whole_workspace_glob() -> None:
    assert compile_glob("**").matches(None)
    assert not compile_glob("*").matches(None)
    assert not compile_glob("notes/**").matches(None)


def test_a_path_the_workspace_refuses_has_no_normal_form() -> None:
    assert normalise_path("../x") is None
    assert normalise_path("a/\u202eb") is None  # a bidirectional override
    assert normalise_path("C:/x") is None
    assert normalise_path("") is None
    assert normalise_path(".") == "."
    assert normalise_path("a/./b/") == "a/b"
