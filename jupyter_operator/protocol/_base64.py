"""Strict, canonical base64 of UTF-8 text (spec rule 5).

Accepted: the standard alphabet ``A-Za-z0-9+/``, length a multiple of 4, at most two ``=``
and only at the end, no whitespace, no unused bits set in the last character (so exactly one
spelling per byte string, as re-encoding would give), and bytes that decode as UTF-8.
``binascii`` alone is lenient (it accepts ``QR==`` and ``QUJD====``), hence the extra checks,
which cost far less than re-encoding to compare.
"""

from __future__ import annotations

import binascii
import re
import sys

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_INDEX = {ch: i for i, ch in enumerate(_ALPHABET)}
_STRICT_DECODE = sys.version_info >= (3, 11)  # binascii's strict_mode appeared in 3.11
_SHAPE = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _decode_bytes(value: str) -> bytes | None:
    n = len(value)
    if n == 0 or n % 4:
        return None
    pad = 2 if value.endswith("==") else 1 if value.endswith("=") else 0
    try:
        if _STRICT_DECODE:
            data = binascii.a2b_base64(value, strict_mode=True)
        elif _SHAPE.fullmatch(value):
            data = binascii.a2b_base64(value)
        else:
            return None
    except binascii.Error:
        return None
    # Catches excess padding ("QUJD====") that the decoder tolerates.
    if len(data) != n // 4 * 3 - pad:
        return None
    if pad:
        last = _INDEX.get(value[n - pad - 1])
        unused_mask = 0b1111 if pad == 2 else 0b11
        if last is None or last & unused_mask:
            return None
    return data


def decode_b64_text(value: str) -> str | None:
    """Decode canonical base64 of UTF-8 text; ``None`` when it is not exactly that.

    Examples
    --------
    >>> decode_b64_text("QWxwaGEKQmV0YQ==")
    'Alpha\\nBeta'
    >>> decode_b64_text("QR==") is None
    True
    """
    data = _decode_bytes(value)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def b64_problem(value: str) -> str | None:
    """Why ``value`` is not canonical base64 of UTF-8 text, or ``None`` when it is."""
    data = _decode_bytes(value)
    if data is None:
        if any(char.isspace() for char in value):
            return ("is not valid base64: it contains spaces; write it as one unbroken line "
                    "(remove every space)")  # fmt: skip
        return "is not valid base64"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "does not decode to UTF-8 text"
    return None


def encode_b64_text(text: str) -> str:
    """Standard base64 (with padding, one line) of the UTF-8 bytes of ``text``."""
    return binascii.b2a_base64(text.encode("utf-8"), newline=False).decode("ascii")
