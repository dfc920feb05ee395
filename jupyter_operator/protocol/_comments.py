"""Comment styles for region markers (``// OPERATOR_BEGIN id`` and ``<!-- OPERATOR_BEGIN id -->``).

A style comes from, in order: an explicit ``comment_line_prefix``, an explicit
``comment_block_start``/``comment_block_end`` pair, ``language``, the file name
(``Dockerfile``), the file extension. The mapping keys are the reference implementation's;
the aliases are the names models actually try (``python``, ``typescript``, ``c++`` ...).
Formats without comments (``json``) have no style on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from . import codes
from ._errors import OperatorError, shown


@dataclass(frozen=True, slots=True)
class CommentStyle:
    """How a file's comments look: a line prefix, or a block start/end pair."""

    language: str
    type: Literal["line", "block"]
    line_prefix: str | None = None
    block_start: str | None = None
    block_end: str | None = None

    def to_json_dict(self) -> dict[str, str]:
        """The spec's JSON object, e.g. ``{"language":"ts","type":"line","line_prefix":"//"}``."""
        if self.type == "line":
            prefix = self.line_prefix or ""
            return {"language": self.language, "type": "line", "line_prefix": prefix}
        return {
            "language": self.language,
            "type": "block",
            "block_start": self.block_start or "",
            "block_end": self.block_end or "",
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class StyleOverride:
    """A command's ``comment_*`` / ``language`` fields (empty values are ``None``)."""

    line_prefix: str | None = None
    block_start: str | None = None
    block_end: str | None = None
    language: str | None = None


def _line(lang: str, prefix: str) -> CommentStyle:
    return CommentStyle(lang, "line", line_prefix=prefix)


def _block(lang: str, start: str, end: str) -> CommentStyle:
    return CommentStyle(lang, "block", block_start=start, block_end=end)


_SLASH_KEYS = ("js", "ts", "jsx", "tsx", "java", "c", "cpp", "h", "hpp", "cs", "go", "rs")
_SLASH_KEYS += ("swift", "kt", "kts", "scala", "groovy")
_HASH_KEYS = ("py", "rb", "pl", "sh", "ps1", "psm1", "psd1", "yaml", "yml", "toml", "ini")
_HASH_KEYS += ("cfg", "conf", "properties")
_KEYS: dict[str, CommentStyle] = {
    **{k: _line(k, "//") for k in _SLASH_KEYS},
    **{k: _line(k, "#") for k in _HASH_KEYS},
    **{k: _line(k, "--") for k in ("lua", "sql")},
    **{k: _block(k, "/*", "*/") for k in ("css", "scss", "less")},
    **{k: _block(k, "<!--", "-->") for k in ("html", "xml", "svg", "md")},
}
_DOCKERFILE = _line("dockerfile", "#")
_STYLES: dict[str, CommentStyle] = {**_KEYS, "dockerfile": _DOCKERFILE}

_ALIASES: dict[str, str] = {
    "javascript": "js",
    "node": "js",
    "mjs": "js",
    "cjs": "js",
    "typescript": "ts",
    "c++": "cpp",
    "cxx": "cpp",
    "cc": "cpp",
    "hxx": "hpp",
    "c#": "cs",
    "csharp": "cs",
    "golang": "go",
    "rust": "rs",
    "kotlin": "kt",
    "python": "py",
    "python3": "py",
    "py3": "py",
    "ruby": "rb",
    "perl": "pl",
    "shell": "sh",
    "bash": "sh",
    "zsh": "sh",
    "powershell": "ps1",
    "pwsh": "ps1",
    "markdown": "md",
    "htm": "html",
    "docker": "dockerfile",
}


def style_for_language(name: str) -> CommentStyle | None:
    """The style for a language name or alias (case-insensitive), or ``None`` if unknown.

    >>> style_for_language("TypeScript").to_json_dict()
    {'language': 'ts', 'type': 'line', 'line_prefix': '//'}
    """
    key = name.strip().lower()
    return _STYLES.get(_ALIASES.get(key, key))


def style_for_path(path: str) -> CommentStyle | None:
    """The default style for a file path: ``Dockerfile`` by name, else by extension."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if name.lower() == "dockerfile":
        return _DOCKERFILE
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return None
    return _KEYS.get(ext.lower())


def all_styles() -> list[CommentStyle]:
    """Every default mapping (the reference keys and ``dockerfile``), sorted by language."""
    return [_STYLES[k] for k in sorted(_STYLES)]


def resolve_style(override: StyleOverride | None, path: str) -> CommentStyle:
    """The style a region command uses for ``path``.

    Raises
    ------
    OperatorError
        ``ERR_UNKNOWN_LANGUAGE`` for an unknown ``language``; ``ERR_COMMENT_STYLE_REQUIRED``
        when neither the command nor the path gives a style.
    """
    if override is not None:
        if override.line_prefix:
            return _line("custom", override.line_prefix)
        if override.block_start and override.block_end:
            return _block("custom", override.block_start, override.block_end)
        if override.language:
            style = style_for_language(override.language)
            if style is None:
                raise OperatorError(codes.ERR_UNKNOWN_LANGUAGE, unknown_language(override.language))
            return style
    style = style_for_path(path)
    if style is None:
        raise OperatorError(
            codes.ERR_COMMENT_STYLE_REQUIRED,
            "comment style not known for path; set comment_line_prefix or "
            "comment_block_start/comment_block_end.",
        )
    return style


_OVERRIDE_HINT = (
    "use operator.getCommentStyle to list languages, or set comment_line_prefix or "
    "comment_block_start/comment_block_end."
)


def unknown_language(name: str, hint: str = _OVERRIDE_HINT) -> str:
    """The message for an unknown ``language`` value."""
    return f"unknown language '{shown(name)}'; {hint}"


def style_list_json() -> dict[str, Any]:
    """``{"styles": [...]}`` for ``operator.getCommentStyle`` without a language."""
    return {"styles": [s.to_json_dict() for s in all_styles()]}
