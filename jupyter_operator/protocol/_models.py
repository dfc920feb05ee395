"""The typed results of a scan: commands with their action parameters, edits, scan errors.

Everything here is immutable: frozen, slotted dataclasses. They are built only by the scanner
and the edits parser, after our own checks have validated every value (``_validate.py``,
``_edits.py``), so a validating model library would check each field a second time; measured on
a reply of 2,800 small blocks, that second check was a third of the scan (bench/scan.py).
For the same reason the scanner builds commands and parameters with ``new_command`` and
``PARAMS_BUILDERS``, which set the slots directly instead of going through the frozen
``__init__``; they make objects equal to the ones the constructors make.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, Literal

from ._comments import StyleOverride
from ._errors import fault_summary

# Keyword-only, as the models were when they were pydantic models (fields with defaults come
# first in some of them).
_frozen = dataclass(frozen=True, slots=True, kw_only=True)


# --- fs.applyEdits edits ----------------------------------------------------------------------
@_frozen
class InsertAfter:
    """Insert ``text`` after the ``occurrence``-th match of ``anchor``."""

    op: Literal["insertAfter"] = "insertAfter"
    anchor: str
    text: str
    occurrence: int = 1


@_frozen
class InsertBefore:
    """Insert ``text`` before the ``occurrence``-th match of ``anchor``."""

    op: Literal["insertBefore"] = "insertBefore"
    anchor: str
    text: str
    occurrence: int = 1


@_frozen
class ReplaceFirst:
    """Replace the first occurrence of ``find`` with ``text``."""

    op: Literal["replaceFirst"] = "replaceFirst"
    find: str
    text: str


@_frozen
class ReplaceAll:
    """Replace every occurrence of ``find`` with ``text`` (at least one must exist)."""

    op: Literal["replaceAll"] = "replaceAll"
    find: str
    text: str


@_frozen
class ReplaceRange:
    """Replace lines ``start_line``..``end_line`` (1-based, inclusive) with ``text``."""

    op: Literal["replaceRange"] = "replaceRange"
    start_line: int
    end_line: int
    text: str


Edit = InsertAfter | InsertBefore | ReplaceFirst | ReplaceAll | ReplaceRange


# --- Action parameters -------------------------------------------------------------------------
@_frozen
class _Params:
    action: ClassVar[str]


@_frozen
class GetInterfaceSpec(_Params):
    """``operator.getInterfaceSpec``."""

    action: ClassVar[str] = "operator.getInterfaceSpec"


@_frozen
class GetCommentStyle(_Params):
    """``operator.getCommentStyle``; ``language`` None lists every style."""

    action: ClassVar[str] = "operator.getCommentStyle"
    language: str | None = None


@_frozen
class ListDir(_Params):
    """``fs.list``."""

    action: ClassVar[str] = "fs.list"
    path: str


@_frozen
class Read(_Params):
    """``fs.read``."""

    action: ClassVar[str] = "fs.read"
    path: str


@_frozen
class ReadSlice(_Params):
    """``fs.readSlice``: ``start`` >= 1, ``lines`` in 1..400."""

    action: ClassVar[str] = "fs.readSlice"
    path: str
    start: int = 1
    lines: int = 120


@_frozen
class Search(_Params):
    """``fs.search``."""

    action: ClassVar[str] = "fs.search"
    path: str
    query: str


@_frozen
class Stat(_Params):
    """``fs.stat``."""

    action: ClassVar[str] = "fs.stat"
    path: str


@_frozen
class SearchTree(_Params):
    """``fs.searchTree``."""

    action: ClassVar[str] = "fs.searchTree"
    path: str
    query: str


@_frozen
class ListRegions(_Params):
    """``fs.listRegions``."""

    action: ClassVar[str] = "fs.listRegions"
    path: str
    style: StyleOverride = StyleOverride()


@_frozen
class ReadRegion(_Params):
    """``fs.readRegion``."""

    action: ClassVar[str] = "fs.readRegion"
    path: str
    marker_id: str
    style: StyleOverride = StyleOverride()


@_frozen
class InsertRegion(_Params):
    """``fs.insertRegion``: ``content`` is the decoded ``content_b64``."""

    action: ClassVar[str] = "fs.insertRegion"
    path: str
    marker_id: str
    anchor: str
    content: str
    position: Literal["before", "after"] = "after"
    occurrence: int = 1
    style: StyleOverride = StyleOverride()


@_frozen
class ReplaceRegion(_Params):
    """``fs.replaceRegion``: ``content`` is the decoded ``content_b64``."""

    action: ClassVar[str] = "fs.replaceRegion"
    path: str
    marker_id: str
    content: str
    style: StyleOverride = StyleOverride()


@_frozen
class DeleteRegion(_Params):
    """``fs.deleteRegion``."""

    action: ClassVar[str] = "fs.deleteRegion"
    path: str
    marker_id: str
    style: StyleOverride = StyleOverride()


@_frozen
class Write(_Params):
    """``fs.write``: ``content`` from ``content_b64`` (preferred) or ``content``."""

    action: ClassVar[str] = "fs.write"
    path: str
    content: str


@_frozen
class Patch(_Params):
    """``fs.patch``: ``patch`` is the decoded ``patch_b64`` (a unified diff)."""

    action: ClassVar[str] = "fs.patch"
    path: str
    patch: str


@_frozen
class ApplyEdits(_Params):
    """``fs.applyEdits``: the validated edits of ``edits_b64``, in order."""

    action: ClassVar[str] = "fs.applyEdits"
    path: str
    edits: tuple[Edit, ...]


@_frozen
class Delete(_Params):
    """``fs.delete``."""

    action: ClassVar[str] = "fs.delete"
    path: str


ActionParams = (
    GetInterfaceSpec
    | GetCommentStyle
    | ListDir
    | Read
    | ReadSlice
    | Search
    | Stat
    | SearchTree
    | ListRegions
    | ReadRegion
    | InsertRegion
    | ReplaceRegion
    | DeleteRegion
    | Write
    | Patch
    | ApplyEdits
    | Delete
)

PARAMS_BY_ACTION: dict[str, type[_Params]] = {
    cls.action: cls
    for cls in ActionParams.__args__  # type: ignore[attr-defined]
}


def _slot_builder(cls: type[_Params]) -> Callable[[Mapping[str, Any]], _Params]:
    """``lambda values: cls(**values)``, setting the slots directly.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` by name,
    which is most of the cost of building one per block. The builder's source is written out
    field by field, as ``dataclasses`` writes ``__init__``: a loop over the fields costs as
    much again. A missing required value is a KeyError, as ``cls(**values)`` would be a
    TypeError: the validator supplies them all.
    """
    env: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = ["def build(values):", "    params = new(cls)"]
    for n, field in enumerate(fields(cls)):
        env[f"set{n}"] = cls.__dict__[field.name].__set__
        if field.default is MISSING:
            lines.append(f"    set{n}(params, values[{field.name!r}])")
        else:
            env[f"default{n}"] = field.default
            lines.append(f"    set{n}(params, values.get({field.name!r}, default{n}))")
    lines.append("    return params")
    exec("\n".join(lines), env)  # the source holds field names and generated names only
    return env["build"]


#: Action -> a builder of its parameters from a dict of values (what ``cls(**values)`` does).
PARAMS_BUILDERS: dict[str, Callable[[Mapping[str, Any]], _Params]] = {
    action: _slot_builder(cls) for action, cls in PARAMS_BY_ACTION.items()
}


# --- Scan output ---------------------------------------------------------------------------------
@_frozen
class Command:
    """One valid ``OPERATOR_CMD`` block.

    ``path`` is as the model wrote it (trimmed); the workspace checks it before any system
    call. ``line`` is the 1-based line of the ``OPERATOR_CMD`` marker in the scanned text.
    ``fields`` holds every raw ``key: value`` of the block.
    """

    id: str
    action: str
    path: str | None
    line: int
    fields: dict[str, str]
    params: ActionParams


def _positional_builder(cls: type) -> Callable[..., Any]:
    """``lambda *values: cls(*values)`` for a keyword-only frozen dataclass, setting its slots.

    The same written-out form as ``_slot_builder``; the scanner builds one Command per block.
    """
    names = [field.name for field in fields(cls)]
    env: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = [f"def build({', '.join(names)}):", "    obj = new(cls)"]
    for name in names:
        env[f"set_{name}"] = cls.__dict__[name].__set__
        lines.append(f"    set_{name}(obj, {name})")
    lines.append("    return obj")
    exec("\n".join(lines), env)  # the source holds field names and generated names only
    return env["build"]


#: ``new_command(id, action, path, line, fields, params)``: ``Command(id=id, ...)``, faster;
#: the values are validated already.
new_command: Callable[[str, str, str | None, int, dict[str, str], ActionParams], Command] = (
    _positional_builder(Command)
)


@dataclass(frozen=True, slots=True)
class ScanError:
    """A block (or marker line) that is not a valid command."""

    code: str
    message: str
    id: str | None
    line: int

    @property
    def summary(self) -> str:
        """``Invalid OPERATOR_CMD (CODE): message``."""
        return fault_summary(self.code, self.message)


@dataclass(frozen=True, slots=True)
class ScanResult:
    """What ``scan`` found, in block order."""

    items: tuple[Command | ScanError, ...]
    skipped_duplicates: tuple[str, ...] = ()
    truncated_chars: int = 0
    #: ``OPERATOR_CMD`` begin markers in the characters cut from the front (their commands
    #: were not read: see ``unread_note``).
    unread_markers: int = 0

    @property
    def commands(self) -> tuple[Command, ...]:
        """The valid commands only."""
        return tuple(i for i in self.items if isinstance(i, Command))

    @property
    def errors(self) -> tuple[ScanError, ...]:
        """The scan errors only."""
        return tuple(i for i in self.items if isinstance(i, ScanError))
