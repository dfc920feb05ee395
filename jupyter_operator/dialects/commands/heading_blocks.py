"""Blocks: the heading sections of a Markdown document, and how ``path#block`` finds one.

A block is a heading line and everything after it up to the next heading of the same or a
higher level, so a block holds its nested sections. ATX (``## Title``) and setext
(``Title`` over ``===`` / ``---``) headings count; lines inside fenced code do not.

``#address`` is matched in this order:

1. the heading's anchor slug as GitHub makes it (``#getting-started``); a title used more than
   once gets ``-1``, ``-2``, ... in document order (``#install``, ``#install-1``);
2. the heading's title, ignoring case (``#Getting Started``), when exactly one heading has it;
3. a path of titles or slugs from an outer heading down (``#Linux/Install``): the last part
   names the block, earlier parts name headings it is nested in, in order.

A title used twice that is not disambiguated is ``AMBIGUOUS``; the message lists the slugs.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from . import codes
from .parse import CommandError

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".qmd", ".rmd", ".txt")

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Block:
    """One heading section: lines ``start`` (the heading) to ``end`` (exclusive), 0-based."""

    title: str
    level: int
    start: int
    end: int
    slug: str
    parents: tuple[str, ...]  # titles of the enclosing headings, outermost first
    parent_slugs: tuple[str, ...]


def is_markdown(path: str) -> bool:
    """True for the file names whose ``#block`` addresses are headings."""
    return path.lower().endswith(MARKDOWN_SUFFIXES)


def slugify(title: str) -> str:
    """GitHub's anchor for a heading title (before duplicates are numbered)."""
    text = unicodedata.normalize("NFC", title).strip().lower()
    kept = "".join(c for c in text if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def _heading_lines(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of every heading, outside fenced code."""
    found: list[tuple[int, int, str]] = []
    fence: str | None = None
    for index, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is not None:
            closing = opened and opened[1][0] == fence[0] and len(opened[1]) >= len(fence)
            if closing and not line.strip()[len(opened[1]) :].strip():
                fence = None
            continue
        if opened:
            fence = opened[1]
            continue
        atx = _ATX.match(line)
        if atx:
            found.append((index, len(atx[1]), (atx[2] or "").strip()))
            continue
        setext = _SETEXT.match(line)
        previous = lines[index - 1] if index else ""
        if (
            setext and previous.strip() and not _ATX.match(previous)
            and not (found and found[-1][0] == index - 1)
            and not _SETEXT.match(previous) and not previous.startswith((" " * 4, "\t"))
        ):  # fmt: skip
            found.append((index - 1, 1 if setext[1][0] == "=" else 2, previous.strip()))
    return found


def blocks(text: str) -> list[Block]:
    """Every heading section of ``text``, in document order."""
    lines = split(text)
    heads = _heading_lines(lines)
    used: dict[str, int] = {}
    result: list[Block] = []
    stack: list[Block] = []
    for n, (start, level, title) in enumerate(heads):
        end = len(lines)
        for later_start, later_level, _ in heads[n + 1 :]:
            if later_level <= level:
                end = later_start
                break
        base = slugify(title)
        count = used.get(base, 0)
        used[base] = count + 1
        slug = base if count == 0 else f"{base}-{count}"
        while stack and stack[-1].level >= level:
            stack.pop()
        block = Block(title, level, start, end, slug,
                      tuple(b.title for b in stack), tuple(b.slug for b in stack))  # fmt: skip
        stack.append(block)
        result.append(block)
    return result


def split(text: str) -> list[str]:
    """Lines without terminators; no empty line after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _matches(part: str, title: str, slug: str) -> bool:
    return part.casefold() == title.casefold() or part.casefold() == slug


def find(text: str, address: str, path: str = "the document") -> Block:
    """The block ``address`` names (see the module docstring); ``CommandError`` if none or many."""
    every = blocks(text)
    wanted = address.strip()
    for block in every:
        if block.slug == wanted:  # slugs are lower case: "#Install" is a title
            return block
    titled = [b for b in every if b.title.casefold() == wanted.casefold()]
    if len(titled) == 1:
        return titled[0]
    if not titled and "/" in wanted:
        parts = [p.strip() for p in wanted.split("/") if p.strip()]
        titled = [
            b for b in every if _matches(parts[-1], b.title, b.slug) and _nested(parts[:-1], b)
        ]
        if len(titled) == 1:
            return titled[0]
    if titled:
        slugs = ", ".join("#" + b.slug for b in titled)
        raise CommandError(
            codes.AMBIGUOUS,
            f"{len(titled)} headings match '{wanted}' in {path}; use one of {slugs}.",
        )
    known = ", ".join("#" + b.slug for b in every[:20]) or "none"
    more = f" and {len(every) - 20} more" if len(every) > 20 else ""
    raise CommandError(
        codes.NOT_FOUND, f"no heading '{wanted}' in {path} (headings: {known}{more})."
    )


def _nested(parts: list[str], block: Block) -> bool:
    """True when ``parts`` name enclosing headings of ``block``, outermost first, in order."""
    k = 0
    for title, slug in zip(block.parents, block.parent_slugs, strict=True):
        if k < len(parts) and _matches(parts[k], title, slug):
            k += 1
    return k == len(parts)
