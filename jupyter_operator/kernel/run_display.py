"""The notebook's display of one run: a ``RunWidget`` wired to the run's own workspace.

Undo, redo and the history in a card view act on the workspace the run changed (its
``Operator``), whatever the kernel's current root is now, and after the run's engine session
closed (``workspace_history``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..widgets.run_widget import RunWidget, engine_operator, workspace_history
from .operators import session

if TYPE_CHECKING:
    from ..engine import DecidableRun


def widget_for(
    run: Any, *, title: str | None = None, dry_run: bool = False, note: str = ""
) -> RunWidget:
    """The cards of ``run`` (any dialect with items), with undo and history of its workspace."""
    operator = engine_operator(run) or session().current_operator()
    undo, redo, history = workspace_history(operator, after=session().refresh_history_views)
    options: dict[str, Any] = {"dry_run": dry_run, "note": note}
    if title:
        options["title"] = title
    return RunWidget(run, undo=undo, redo=redo, history=history, **options)


def show_run(text: str, *, root: str | None = None, dry_run: bool = False,
             dialect: str = "auto") -> DecidableRun:  # fmt: skip
    """Plan ``text`` in the kernel's session (any dialect), display its cards, remember both.

    A bad root or dialect is one line (``UsageError``).
    """
    from ..widgets.saved_output import SavedOutput

    state = session()
    try:
        run = state.run(text, root=root, dry_run=dry_run, dialect=dialect)
    except ValueError as exc:
        raise UsageError(f"operator: {exc}") from None
    note = ""
    if not dry_run and not run.items and run.skipped_duplicates:
        # The same reply again (a cell run twice): show what was decided, not "0 commands".
        earlier = state.earlier_run(state.resolve_root(root), run.skipped_duplicates)
        if earlier is not None:
            run = state.last_run = earlier
            note = "This reply already ran in this session; these are its cards as decided."
    title = "Operator (dry run: nothing is written)" if dry_run else None
    view = widget_for(run, title=title, dry_run=dry_run, note=note)
    state.last_view = view
    saved = SavedOutput(view)
    # After the view's own subscriber: the saved text follows the cards.
    run.subscribe(lambda _item: saved.update(view))
    return run
