"""A notebook's own policy, held where every read and change of a file passes: the workspace.

``metadata.jupyter_operator.policy`` (``notebooks.teacher``) is a property of the notebook
file, so the layer that owns every file access checks it, whatever dialect, front or action
asked: OPERATOR_CMD blocks, JSON operations, string commands, translated tool calls, the
server's file API, undo. ``Workspace`` calls these on its reads (``read_bytes``, ``snapshot``,
the tree search) and its changes (``write``, ``move_out``, and each notebook below a folder a
delete would move):

- a notebook whose policy (capped by the server) is ``off`` is never read nor changed;
- no change adds, alters or removes ``metadata.jupyter_operator`` (a new notebook carrying it,
  a delete of a notebook carrying it, or of a folder holding one, included): only the
  notebook's author sets it, outside the operator;
- a notebook that allows previews only (``dry-run``) is never written.

The engine plans with ``applying=False`` (a ``dry-run`` change is still previewed).
"""

from __future__ import annotations

from jupyter_operator.notebooks import teacher
from jupyter_operator.protocol import OperatorError, codes

from .paths import display_path


def is_notebook_name(name: str) -> bool:
    """True for a ``.ipynb`` file name, in any case; a trailing dot or space counts as absent
    (Windows and some network file systems drop them: ``nb.ipynb.`` is ``nb.ipynb`` there)."""
    return name.rstrip(". ").lower().endswith(".ipynb")


def carries_policy(comps: tuple[str, ...], data: bytes | None) -> bool:
    """True when ``data`` is a notebook at ``comps`` that carries ``metadata.jupyter_operator``."""
    return bool(comps) and is_notebook_name(comps[-1]) and teacher.block_of(
        teacher.parse(data)) is not None  # fmt: skip


def _refused(comps: tuple[str, ...], why: str) -> OperatorError:
    return OperatorError(codes.ERR_NOTEBOOK_POLICY, f"{display_path(comps)}: {why}.")


def check_read(comps: tuple[str, ...], data: bytes | None, cap: str | None) -> None:
    """``ERR_NOTEBOOK_POLICY`` when ``data`` is a notebook at ``comps`` that may not be read."""
    if data is not None and comps and is_notebook_name(comps[-1]):
        _check_level(comps, teacher.parse(data), cap, "read")


def _check_level(comps: tuple[str, ...], doc: object, cap: str | None, what: str) -> None:
    level = teacher.level_of_parsed(doc, cap)
    if level is not None and not teacher.allows(level, what):
        raise _refused(comps, teacher.MEANING[level])


def check_change(comps: tuple[str, ...], before: bytes | None, after: bytes | None,
                 cap: str | None, *, applying: bool = True) -> None:  # fmt: skip
    """``ERR_NOTEBOOK_POLICY`` when changing the notebook at ``comps`` from ``before`` to
    ``after`` (None: absent) is not allowed; ``applying`` False checks a preview."""
    if not comps or not is_notebook_name(comps[-1]):
        return
    old = teacher.parse(before)
    _check_level(comps, old, cap, "read")  # off: not even a preview
    if teacher.block_of(old) != teacher.block_of(teacher.parse(after)):
        raise _refused(comps, f"the change would alter the notebook's own policy "
                       f"(metadata.{teacher.KEY}); only its author sets it")  # fmt: skip
    if applying:
        _check_level(comps, old, cap, "apply")
