"""The lexical path check (D1): what is refused before any system call, and what is fine."""

from __future__ import annotations

import sys

import pytest

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import canonical_path, parse_path
from jupyter_operator.workspace.paths import DEFAULT_PROTECTED, ProtectedMatcher, display_name

REFUSED = {
    "empty": "",
    "parent": "../secret.txt",
    "nested parent": "sub/../../escape.txt",
    "inside parent": "a/../b.txt",
    "trailing parent": "sub/..",
    "backslash parent": "..\\..\\secret",
    "absolute": "/etc/passwd",
    "double slash absolute": "//etc/passwd",
    "backslash absolute": "\\etc\\passwd",
    "unc": "\\\\attacker\\share\\x",
    "unc forward": "//attacker/share/x",
    "device namespace": "\\\\?\\C:\\x",
    "drive": "C:\\Windows\\win.ini",
    "drive relative": "C:foo",
    "drive forward": "c:/x",
    "ntfs stream": "file.txt::$DATA",
    "home": "~/.ssh/id_rsa",
    "home user": "~root/x",
    "nul": "a\0.txt",
    "newline": "a\nb",
    "carriage return": "a\rb",
    "tab": "a\tb",
    "escape": "\x1b[2J",
    "delete char": "a\x7fb",
    "c1 control": "a\x85b",
    "zero width": ".g\u200cit/config",
    "bidi override": "invoice\u202etxt.exe",
    "line separator": "a\u2028b",
    "bom": "\ufeffa.txt",
    "lone surrogate": "a\udcffb",
    "too long": "a/" * 2049,
    "long component": "x" * 256,
    "long multibyte component": "é" * 128,
}


@pytest.mark.parametrize("path", REFUSED.values(), ids=REFUSED.keys())
def test_refused_lexically(path: str) -> None:
    with pytest.raises(OperatorError) as info:
        parse_path(path)
    assert info.value.code == codes.ERR_PATH_ESCAPE
    assert info.value.message.startswith("invalid path: ")
    # The reason never echoes the bad path (it may hold control characters).
    if len(path) > 3:
        assert path not in info.value.message


ACCEPTED = {
    "a.txt": ("a.txt",),
    "sub/b.txt": ("sub", "b.txt"),
    "sub\\b.txt": ("sub", "b.txt"),
    "./sub//b.txt": ("sub", "b.txt"),
    "sub/": ("sub",),
    "a..b.txt": ("a..b.txt",),
    "...": ("...",),
    ".hidden": (".hidden",),
    "x~": ("x~",),
    "$HOME/x": ("$HOME", "x"),
    "%USERPROFILE%": ("%USERPROFILE%",),
    "café/naïve.txt": ("café", "naïve.txt"),
    ".": (),
    "./": (),
    "x" * 255: ("x" * 255,),
}


@pytest.mark.parametrize("path", ACCEPTED.keys())
def test_accepted(path: str) -> None:
    assert parse_path(path) == ACCEPTED[path]


@pytest.mark.parametrize(
    "comps",
    [
        (".git",),
        (".git", "config"),
        (".GIT", "hooks", "pre-commit"),
        ("sub", ".git", "config"),
        (".Jupyter", "jupyter_server_config.py"),
        (".ipython", "profile_default", "startup", "x.py"),
        (".ipynb_CHECKPOINTS", "a-checkpoint.ipynb"),
        (".operator-trash",),
        (".git.",),  # Windows ignores a trailing dot
        (".git ",),
    ],
)
def test_default_protected(comps: tuple[str, ...]) -> None:
    assert ProtectedMatcher(DEFAULT_PROTECTED).matches(comps)


@pytest.mark.parametrize("comps", [("a.txt",), ("git",), (".gitignore",), ("sub", "x.git")])
def test_not_protected(comps: tuple[str, ...]) -> None:
    assert not ProtectedMatcher(DEFAULT_PROTECTED).matches(comps)


def test_custom_patterns_anchored_and_wildcards() -> None:
    m = ProtectedMatcher(["secrets/", "*.pth", "data/raw"])
    assert m.matches(("secrets", "key"))
    assert m.matches(("lib", "site.PTH"))
    assert m.matches(("data", "raw", "x.csv"))
    assert not m.matches(("other", "secrets", "key"))  # "secrets/" is anchored at the root
    assert not m.matches(("data", "clean.csv"))


def test_display_name_escapes_controls_and_undecodable_bytes() -> None:
    assert display_name("plain.txt") == "plain.txt"
    assert display_name("a\nb") == "a\\x0ab"
    assert display_name("\udcff\udcfe.txt") == "\\xff\\xfe.txt"
    assert display_name("x\u202ey") == "x\\u202ey"
    assert display_name("café") == "café"


def test_no_other_character_case_folds_to_a_leading_character() -> None:
    # ProtectedMatcher.leading lets a walk skip names by their first character: sound only
    # if no other character's case folding starts with one of these.
    from jupyter_operator.workspace.paths import _CASELESS_LEADS

    for code in range(sys.maxunicode + 1):
        char = chr(code)
        folded = char.casefold()
        assert not (folded[:1] in _CASELESS_LEADS and folded[0] != char), hex(code)


def test_leading_characters_only_when_every_pattern_allows_it() -> None:
    assert ProtectedMatcher(DEFAULT_PROTECTED).leading == frozenset(".")
    assert ProtectedMatcher([".git", "1secret"]).leading == frozenset(".1")
    assert ProtectedMatcher([".git", "*.pth"]).leading is None  # a wildcard may match any name
    assert ProtectedMatcher([".git", "secrets"]).leading is None  # "SECRETS", "ſecrets" fold to it
    assert ProtectedMatcher(["data/raw"]).leading == frozenset()  # anchored ones are not per-name


@pytest.mark.parametrize("spelling", ["n.ipynb", "./n.ipynb", ".//n.ipynb/", "n.ipynb/.",
                                      ".\\n.ipynb"])  # fmt: skip
def test_canonical_path_gives_one_spelling(spelling: str) -> None:
    assert canonical_path(spelling) == "n.ipynb"
    assert canonical_path("./a//n.ipynb") == canonical_path("a\\n.ipynb") == "a/n.ipynb"


def test_canonical_path_folds_nothing_that_names_another_file() -> None:
    """On Linux these are other files, and the jail reaches them as such: kernels keyed by
    them stay apart. ``..`` is refused, as by every path check of the protocol."""
    nfc, nfd = "caf\u00e9.ipynb", "cafe\u0301.ipynb"
    assert canonical_path(nfc) != canonical_path(nfd)
    assert canonical_path("n.ipynb ") == "n.ipynb " and canonical_path("N.ipynb") == "N.ipynb"
    with pytest.raises(OperatorError) as caught:
        canonical_path("a/../n.ipynb")
    assert caught.value.code == "ERR_PATH_ESCAPE"
