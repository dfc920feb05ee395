"""A notebook's own policy applied to changes (runs check it in ``executions``).

Every change to a ``.ipynb`` (a cell action, or an ``fs.*`` write of the file) is planned, then
checked here: a change that would alter ``metadata.jupyter_operator`` is refused whatever it
is, a notebook set to ``off`` is not changed, and one set to ``dry-run`` is previewed but never
applied.
"""

from __future__ import annotations

from ..notebooks import teacher
from ..protocol import OperatorError, codes
from .items import Proposal
from .notebook_cells import is_notebook_path


def check_change(proposal: Proposal, cap: str | None) -> None:
    """Raise ``ERR_NOTEBOOK_POLICY`` for a change the notebook's policy forbids; remember a
    ``dry-run`` level on the proposal for ``check_apply``."""
    snapshot = proposal.snapshot
    if snapshot is None or snapshot.is_dir or not is_notebook_path(snapshot.path):
        return
    if teacher.key_changed(snapshot.data, proposal.new_bytes):
        raise OperatorError(codes.ERR_NOTEBOOK_POLICY, f"the change would alter the notebook's "
                            f"own policy (metadata.{teacher.KEY}); only its author sets it.")
    level = teacher.level_in(snapshot.data, cap)
    if level is None:
        return
    if not teacher.allows(level, "change"):
        raise OperatorError(codes.ERR_NOTEBOOK_POLICY, f"{teacher.MEANING[level]}.")
    proposal.notebook_policy = level


def check_apply(proposal: Proposal | None) -> None:
    """Raise ``ERR_NOTEBOOK_POLICY`` when the notebook allows previews only."""
    level = proposal.notebook_policy if proposal is not None else None
    if level is not None and not teacher.allows(level, "apply"):
        raise OperatorError(codes.ERR_NOTEBOOK_POLICY, f"{teacher.MEANING[level]}.")
