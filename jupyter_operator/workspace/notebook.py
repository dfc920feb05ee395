"""Notebook validation: a ``.ipynb`` write must leave a notebook that nbformat accepts."""

from __future__ import annotations

from jupyter_operator.protocol import OperatorError, codes

from .paths import parse_path

# Not (yet) one of the protocol's extension codes; codes are plain strings equal to their name.
ERR_INVALID_NOTEBOOK = codes.ERR_INVALID_NOTEBOOK


def is_notebook(path: str) -> bool:
    """True when ``path`` names a ``.ipynb`` file, decided on the parsed path.

    Parsing drops a trailing ``/``, ``/.`` or ``\\`` (``nb.ipynb/`` is the file ``nb.ipynb``),
    so a check on the raw text would let such a spelling skip notebook validation.
    """
    comps = parse_path(path)
    return bool(comps) and comps[-1].lower().endswith(".ipynb")


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[:limit] + "..."


def validate_notebook(data: bytes | str) -> None:
    """Raise ``OperatorError(ERR_INVALID_NOTEBOOK)`` unless ``data`` is a valid notebook.

    The notebook is checked against its own nbformat version's schema (no conversion).
    """
    import json

    import nbformat  # heavy (jsonschema): loaded on first use
    from nbformat.validator import ValidationError

    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        raw = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        reason = "not UTF-8" if isinstance(exc, UnicodeDecodeError) else "not valid JSON"
        raise OperatorError(ERR_INVALID_NOTEBOOK, f"the notebook is {reason}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("nbformat"), int):
        raise OperatorError(ERR_INVALID_NOTEBOOK, "the notebook has no integer 'nbformat' field")
    try:
        nb = nbformat.from_dict(raw)
        nbformat.validate(nb)
    except ValidationError as exc:
        raise OperatorError(
            ERR_INVALID_NOTEBOOK, f"the notebook does not validate: {_first_line(exc.message)}"
        ) from None
    except Exception:  # nbformat raises assorted errors for unknown versions
        raise OperatorError(
            ERR_INVALID_NOTEBOOK, "the notebook does not validate (unsupported nbformat)"
        ) from None
