"""The closest line to a text that was not found: a one-turn fix for a near miss.

A model's anchor or ``find`` text is often almost right: a space too many, a tab for spaces,
straight quotes for curly ones, another case. The error then names the closest line (its
number, the line with its whitespace made visible by ``ascii()``) and what differs, so the next
command can match it.
"""

from __future__ import annotations

from difflib import SequenceMatcher

MAX_LINES = 20_000  # lines compared (a larger file is searched in its first ones only)
MIN_RATIO = 0.6
SHOWN = 100  # characters of the closest line shown

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _why(line: str, wanted: str) -> str:
    if line.split() == wanted.split():
        return "whitespace differs"
    if line.translate(_QUOTES) == wanted.translate(_QUOTES):
        return "quotes differ (curly and straight)"
    if line.lower() == wanted.lower():
        return "letter case differs"
    if line.strip() == wanted.strip():
        return "leading or trailing whitespace differs"
    return "text differs"


def closest_line(text: str, needle: str) -> str:
    """``; closest: line 12 'def  foo():' (whitespace differs)``, or ``""`` when no line of
    ``text`` is close to the first line of ``needle``."""
    wanted = next((line for line in needle.splitlines() if line.strip()), "")
    if not wanted:
        return ""
    best, best_ratio = -1, MIN_RATIO
    lines = text.splitlines()[:MAX_LINES]
    folded = wanted.lower().translate(_QUOTES)  # case and quote style do not hide a line
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        matcher = SequenceMatcher(None, line.lower().translate(_QUOTES), folded, autojunk=False)
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = number, ratio
    if best < 0:
        return ""
    line = lines[best]
    shown = ascii(line if len(line) <= SHOWN else line[:SHOWN] + "...")
    return f"; closest: line {best + 1} {shown} ({_why(line, wanted)})"
