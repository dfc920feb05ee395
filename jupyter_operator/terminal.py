"""Deciding on a terminal: each diff made visible, the ``y/N/a/q/e`` question, and an edit of a
change in the person's own editor before it is applied.

The command line's ``--approve ask`` (``run`` and ``agent``) uses it. Nothing from a file or a
model reaches the terminal raw (``visible_text``).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
from contextlib import suppress
from pathlib import PurePosixPath
from typing import IO, Any


def open_terminal() -> IO[str] | None:
    """The controlling terminal, for questions when stdin carries the reply."""
    try:
        return open("/dev/tty", "r+", encoding="utf-8")
    except OSError:
        return None


# Control characters (C0 but tab and newline, DEL, C1: CSI/OSC escapes start with ESC or U+009B)
# and the invisible and bidirectional characters the notebook cards mark (Trojan Source).
_UNSAFE = re.compile(
    "[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)


def visible_text(text: str) -> str:
    """``text`` with every control or invisible character spelled ``<U+XXXX>``.

    Nothing from a file or a model reaches the terminal raw: cursor movement, erase, title and
    hyperlink sequences in content would otherwise hide or forge what is shown. The CR of a
    CRLF line ending is dropped (one note says the file uses CRLF), a lone CR is marked.
    """
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return _UNSAFE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def show_diff(diff: str, out: IO[str]) -> None:
    """Write ``diff`` made visible, coloured when ``out`` is a terminal."""
    shown = visible_text(diff)
    if "\r\n" in diff:
        out.write("(the file uses CRLF line endings)\n")
    if not shown.endswith("\n"):
        shown += "\n"
    if out.isatty():
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import DiffLexer

        # Colour codes are added after every character of content was made visible.
        out.write(highlight(shown, DiffLexer(), TerminalFormatter()))
    else:
        out.write(shown)


ASK_HELP = (
    "  y = apply this change, n or Enter = reject it, a = apply it and all remaining,\n"
    "  q = reject it and all remaining, e = edit the new content in $VISUAL or $EDITOR and\n"
    "  then decide on your edit, r = apply a cell change and run the cell (Approve & Run);\n"
    "  anything else is sent to the model as the reason.\n"
)


def describe_pending(item: Any, tty: IO[str]) -> None:
    """What a pending item would do: the exact command of a shell item, else the diff."""
    shell = getattr(item, "shell", None)
    if shell is not None:  # the exact command, where it runs and with what
        summary = visible_text(item.summary)
        tty.write(f"\nshell ({summary})\n  command: {visible_text(shell.command)}\n")
        tty.write(f"  cwd: {visible_text(shell.cwd)}\n")
        for name, value in shell.env.items():
            tty.write(f"  env: {visible_text(f'{name}={value}')}\n")
        if not shell.sandboxed:
            tty.write("  not sandboxed: it runs with your permissions\n")
        return
    tty.write(f"\n{visible_text(f'{item.action} {item.path}  ({item.summary})')}\n")
    foreign = getattr(item, "foreign", None)
    if foreign is not None:  # a call in the model's own format: say so, show the translation
        tty.write(f"  the model used its own tool-call format ({foreign.family_name}: "
                  f"{visible_text(foreign.name)}); translated to:\n")
        tty.write(_indented(foreign.block or ""))
    execution = getattr(item, "execution", None)
    if execution is not None:  # the exact source, the kernel, and what the code may reach
        describe_run(execution, tty)
    if getattr(item, "rule", None):  # why it asks: "asked by rule 3: ask **/*.ipynb"
        tty.write(f"  asked by {visible_text(item.rule)}\n")
    if item.diff:
        show_diff(item.diff, tty)


def describe_run(execution: Any, tty: IO[str]) -> None:
    """A cell run as the person decides on it: where, in which kernel, what ran before, the
    source (or the cells of a rebuild)."""
    kernel, request = execution.kernel, execution.request
    count = f", execution count {kernel.execution_count}" if kernel.execution_count else ""
    tty.write(f"  kernel: {visible_text(kernel.name)} ({kernel.state}{count})\n")
    tty.write(f"  runs in: {visible_text(kernel.reach)}\n")
    if execution.ran_before:
        ran = ", ".join(f"{r['cell_id']} [{r['execution_count']}]" for r in execution.ran_before)
        tty.write(f"  ran before in this kernel: {visible_text(ran)}\n")
    if request.restart:
        tty.write("  the kernel restarts: its variables and imports are lost\n")
    for cell_id, source, _sha in request.cells:
        tty.write(f"  --- cell {visible_text(str(cell_id))}\n{_indented(source)}")
    if request.source:
        tty.write(_indented(request.source))


def _indented(source: str) -> str:
    return "".join(f"    {visible_text(line)}\n" for line in source.splitlines())


def _editable(item: Any) -> bool:
    from .engine.edited_proposals import editable

    try:
        return editable(item)
    except AttributeError:  # an item kind with no proposal (a bash line)
        return False


def _editor_command() -> list[str]:
    return shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")


def edit_in_editor(item: Any, answers: IO[str], tty: IO[str]) -> bytes | None:
    """The item's new content as the person saved it in their editor; None if unchanged.

    The proposal goes into a private temporary file outside the workspace (named like the
    target, so the editor picks its syntax colours), the editor runs on this terminal, and
    the file is read back and removed. Raises OSError when the editor cannot be started.
    """
    proposed: bytes = item.proposal.new_bytes
    suffix = "".join(PurePosixPath(item.path or "").suffixes[-1:])
    fd, path = tempfile.mkstemp(prefix="jupyter-operator-edit-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(proposed)
        tty.flush()
        # The editor talks to the terminal the answers come from, whatever stdin carried.
        code = subprocess.call([*_editor_command(), path], stdin=answers, stdout=tty)
        if code != 0:
            tty.write(f"  the editor exited with status {code}: the edit is dropped\n")
            return None
        with open(path, "rb") as handle:
            edited = handle.read()
    finally:
        with suppress(OSError):
            os.unlink(path)
    return None if edited == proposed else edited


def _decide_on_edit(run: Any, item: Any, answers: IO[str], tty: IO[str]) -> bool:
    """Edit ``item`` and ask again on the edit; True when the edit was applied."""
    from .engine.edited_proposals import changed_lines, preview_diff
    from .engine.errors import BadEdit

    try:
        content = edit_in_editor(item, answers, tty)
    except OSError as exc:
        tty.write(f"  no editor could be started ({exc.strerror or exc}): set $EDITOR\n")
        return False
    if content is None:
        tty.write("  no change made to the proposal\n")
        return False
    added, removed = changed_lines(item, content)
    tty.write(f"\nyour edit of {visible_text(item.path or '')}: +{added} -{removed} lines "
              "compared with the proposal; the change would now be:\n")  # fmt: skip
    show_diff(preview_diff(item, content) or "(no change to the file)\n", tty)
    tty.write("Apply your edit? [y/N] ")
    tty.flush()
    line = answers.readline()
    if line.strip().lower() not in ("y", "yes"):
        tty.write("  your edit is dropped\n")
        return False
    try:
        run.approve(item.id, content=content)
    except BadEdit as exc:
        tty.write(f"  your edit cannot be applied: {visible_text(str(exc))}\n")
        return False
    return True


def ask(run: Any, answers: IO[str], tty: IO[str]) -> None:
    """Show each pending item on ``tty`` and read the decision from ``answers``.

    ``[y/N/a/q/e/reason]``: the capital N is what Enter does, ``e`` is offered for a change
    whose new content is text. Items are taken one at a time, in order: a JSON batch only
    reveals its next question once the current one is decided.
    """
    from .engine.labels import outcome_line

    remaining = "ask"
    while run.pending:
        item = run.pending[0]
        choice = answer = ""
        if remaining == "ask":
            describe_pending(item, tty)
            options = "y/N/a/q/e/reason" if _editable(item) else "y/N/a/q/reason"
            if getattr(item, "can_run", False):
                options = options.replace("/reason", "/r/reason")
            answer = "?"
            while answer.lower() in ("?", "e"):
                tty.write(f"Apply {visible_text(item.id)}? [{options}] (? for help): ")
                tty.flush()
                line = answers.readline()
                answer = line.strip() if line else "q"  # end of input: reject the rest
                if answer == "?":
                    tty.write(ASK_HELP)
                elif answer.lower() == "e" and _editable(item):
                    if _decide_on_edit(run, item, answers, tty):
                        break
                elif answer.lower() == "e":
                    tty.write("  this change cannot be edited (only new text content can)\n")
            choice = answer.lower()
            if choice in ("a", "all"):
                remaining = "approve"
            elif choice in ("q", "quit"):
                remaining = "reject"
        if not item.needs_approval:  # applied with the person's edit
            pass
        elif remaining == "ask" and choice == "r" and getattr(item, "can_run", False):
            run.approve(item.id, and_run=True)
        elif remaining == "approve" or (remaining == "ask" and choice in ("y", "yes")):
            run.approve(item.id)
        else:
            reason = None
            if remaining == "ask" and choice not in ("", "n", "no"):
                reason = answer
            run.reject(item.id, reason)
        # What happened, in the person's words (a rejection says the reason it carries).
        tty.write(f"  {visible_text(item.id)} -> {visible_text(outcome_line(item))}\n")


def reject_without_terminal(run: Any) -> None:
    """No terminal to ask and no --approve: reject every change, and say so on stderr."""
    import sys

    count = len(run.reject_all())
    if count:
        print(
            f"jupyter-operator: no terminal to ask, so {count} change{'s' * (count != 1)} "
            f"{'was' if count == 1 else 'were'} rejected "
            "(use --approve all to apply, --approve none to reject quietly).",
            file=sys.stderr,
        )
