"""Action names, limits, and the interface spec text shipped with the package.

The spec text is the normative seed ("Operator Interface Specification (version: 3)") with
one fix: rule 16's garbled apostrophe is a plain ASCII one. Host extensions are described in
an appendix so a model always reads what this host really does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources

from . import codes
from ._cells import CELL_CODE_DOCS, NB_ACTIONS_TEXT, check_extensions

_READS = (
    "operator.getInterfaceSpec",
    "operator.getCommentStyle",
    "fs.list",
    "fs.read",
    "fs.readSlice",
    "fs.search",
    "fs.stat",
    "fs.searchTree",
    "fs.listRegions",
    "fs.readRegion",
)
_WRITES = (
    "fs.insertRegion",
    "fs.replaceRegion",
    "fs.deleteRegion",
    "fs.write",
    "fs.patch",
    "fs.applyEdits",
)

ACTIONS: tuple[str, ...] = (*_READS, *_WRITES, "fs.delete", "operator.error")
"""The 18 actions of the spec. ``operator.error`` is reserved: a model may not send it."""

READ_ACTIONS: frozenset[str] = frozenset(_READS)
"""Actions that never change the disk and run without confirmation."""

WRITE_ACTIONS: frozenset[str] = frozenset(_WRITES)
"""Actions that change a file's bytes; they need the person's approval of a diff."""

DELETE_ACTIONS: frozenset[str] = frozenset({"fs.delete"})
"""Actions that remove a path; they need the person's approval."""

RESERVED_ACTIONS: frozenset[str] = frozenset({"operator.error"})

# Limits of the spec.
MAX_SCAN_CHARS = 200_000
MAX_BLOCK_LINES = 200
MAX_BLOCK_CHARS = 50_000
READSLICE_DEFAULT_START = 1
READSLICE_DEFAULT_LINES = 120
READSLICE_MAX_LINES = 400

_SPEC_ASSET = "operator_interface_spec.txt"

# One line per extension code: what it means to a model.
_EXTENSION_DOCS: dict[str, str] = {
    codes.ERR_PATH_ESCAPE: "the path is absolute, contains a '..' component or leaves the "
    "workspace (also through a symbolic link).",
    codes.ERR_NOT_FOUND: "the path does not exist.",
    codes.ERR_NOT_A_FILE: "the action needs a file and the path is a directory or special file.",
    codes.ERR_NOT_A_DIRECTORY: "the action needs a directory and the path is not one.",
    codes.ERR_PROTECTED_PATH: "the path is protected by the host (for example .git) and may not "
    "be changed.",
    codes.ERR_STALE_PREVIEW: "the file changed after the change was previewed; nothing was "
    "written. Read the file again and resend.",
    codes.ERR_REJECTED: "the person rejected the change; nothing was written. The summary "
    "carries their reason when they gave one.",
    codes.ERR_POLICY_DENIED: "the host's policy does not allow this action; nothing was done.",
    codes.ERR_DUPLICATE_KEY: "a key appears twice in one OPERATOR_CMD with different values.",
    codes.ERR_PATCH_DOES_NOT_APPLY: "a hunk's context or removed lines do not match the file "
    "exactly; the summary names the hunk.",
    codes.ERR_INVALID_PATCH: "patch_b64 is not a single-file unified diff with correct hunk "
    "counts.",
    codes.ERR_NOT_UTF8: "the file is not UTF-8 text, so it cannot be read or edited as text.",
    codes.ERR_INVALID_NOTEBOOK: "the change would leave a .ipynb file that is not a valid "
    "notebook; nothing was written.",
    codes.ERR_IO: "the operating system refused the operation; nothing was changed.",
    codes.ERR_RESULT_TOO_LARGE: "the change would make the file larger than the host's limit "
    "(16 MiB); nothing was planned. Make smaller changes.",
    codes.ERR_OUTPUT_BUDGET: "this reply's reads already returned the host's output budget "
    "(8 MiB in all); the read did not run. Read less, or read it in the next turn.",
    codes.ERR_TOO_MANY_ENTRIES: "deleting this folder would move more entries than the host's "
    "limit (10000); nothing was changed. Delete smaller folders.",
    codes.ERR_BASE_REJECTED: "the change was built on an earlier change in the same reply "
    "that the person rejected, and cannot be made without it; nothing was written.",
    codes.ERR_JOURNAL_CORRUPT: "the host's undo journal is damaged, so history, undo and redo "
    "refuse; nothing was changed.",
    codes.ERR_UNDO_CONFLICT: "an undo or redo was refused because the file changed since, or a "
    "later change to it must be undone first; nothing was changed.",
    codes.ERR_UNDONE: "the person undid this change after it was applied; the file is as it "
    "was before the command. Read it again before building on it.",
    codes.ERR_REPLY_TOO_LONG: "the reply was longer than the 200,000 characters that are "
    "scanned and OPERATOR_CMD markers were in the part cut off; those commands did not run. "
    "Send them again in a shorter reply.",
    codes.ERR_PAGE_UNAVAILABLE: "the notebook is open in a JupyterLab page that did not apply "
    "the approved change in time; nothing was changed. Propose it again later.",
}

_HOST_NOTES = """\
Host behaviour a model must know:
- Paths are relative to the workspace root, with / or \\ separators. Absolute paths, drive
  letters, ~ and any '..' component are rejected (ERR_PATH_ESCAPE); a name such as a..b.txt
  is fine.
- fs.applyEdits replaceFirst replaces the first occurrence of find, even when there are more.
  An edit that finds nothing fails the whole command and names the edit index (0-based).
- Every edit is validated before anything is shown to the person: text must be a string,
  anchor/find non-empty strings, occurrence/startLine/endLine integers >= 1.
- readSlice start and lines, and insertRegion occurrence, must be whole numbers >= 1; lines
  above 400 are clamped to 400.
- version must be exactly 1. A key repeated with a different value is ERR_DUPLICATE_KEY.
- Base64 payloads must be canonical standard base64 of UTF-8 text.
- Writes are shown to the person as a diff and applied only after approval; fs.delete moves
  the path to an undoable trash and fails with ERR_NOT_FOUND when the path does not exist.
- The person may edit a change before approving it. Its result is then ok: true, the summary
  says the person edited it, and the details are a unified diff from your proposal
  (--- proposed/) to what was written (+++ written/): build on what was written.
- Limits: a change may make a file of at most 16 MiB; fs.readSlice and fs.search cut lines
  after 2000 characters (" [line cut: N more characters]"); the reads of one reply return at
  most 8 MiB in all; a folder delete moves at most 10000 entries and none protected.
"""


@lru_cache(maxsize=1)
def _spec_text() -> str:
    # A package asset, read once: the spec is data, not code.
    return resources.files(__package__).joinpath(_SPEC_ASSET).read_text(encoding="utf-8")


def interface_spec(
    extensions: Sequence[str] = codes.EXTENSION_CODES, *, actions: Iterable[str] = ()
) -> str:
    """The interface spec text a model receives from ``operator.getInterfaceSpec``.

    Parameters
    ----------
    extensions
        The host extension codes in use. By default all of them (the engine always runs
        with them); an appendix lists each with one line, plus the host's deliberate
        semantics. An empty sequence (and no ``actions``) gives the bare spec text.
    actions
        Host extensions of actions the host enabled (``("nb",)``: the notebook cell
        actions): the appendix then describes them and lists their codes too.

    Raises
    ------
    ValueError
        If a name in ``extensions`` is not a known extension code, or one in ``actions``
        not a known extension.
    """
    text = _spec_text()
    cells = "nb" in check_extensions(actions)
    if not extensions and not cells:
        return text
    unknown = [code for code in extensions if code not in _EXTENSION_DOCS]
    if unknown:
        raise ValueError(f"unknown extension codes: {', '.join(unknown)}")
    docs = {code: _EXTENSION_DOCS[code] for code in extensions}
    if cells:
        docs.update(CELL_CODE_DOCS)
    lines = [
        "",
        "APPENDIX: HOST EXTENSIONS",
        "Extra error codes (summaries use the same 'Invalid OPERATOR_CMD (ERR_...): ...' form;",
        "a person's refusal reads 'Rejected (ERR_REJECTED): ...', a policy's 'Denied",
        "(ERR_POLICY_DENIED): ...', a file changed after its preview 'Not applied",
        "(ERR_STALE_PREVIEW): ...'):",
    ]
    lines += [f"- {code}: {doc}" for code, doc in docs.items()]
    appendix = text + "\n".join(lines) + "\n\n" + _HOST_NOTES
    return appendix + ("\n" + NB_ACTIONS_TEXT if cells else "")
