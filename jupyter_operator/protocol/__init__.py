"""The Operator protocol, pure: reply text in, validated commands out; results in, text out.

No file access, no IPython, no tornado (the spec text is read once as a package asset).
``scan`` finds and validates ``OPERATOR_CMD`` blocks exactly as the Operator Interface
Specification (version 3) and the project's ``PROTOCOL.md`` decisions say;
``format_results`` writes the ``OPERATOR_RESULT`` blocks a model reads back.
"""

from __future__ import annotations

from . import codes
from ._base64 import decode_b64_text, encode_b64_text
from ._cells import (
    CELL_ACTIONS,
    CELL_READ_ACTIONS,
    CELL_WRITE_ACTIONS,
    EXTENSIONS,
    DeleteCell,
    InsertCell,
    MoveCell,
    ReadCells,
    ReplaceCell,
    actions_of,
    check_extensions,
)
from ._comments import (
    CommentStyle,
    StyleOverride,
    all_styles,
    resolve_style,
    style_for_language,
    style_for_path,
)
from ._edits import parse_edits
from ._errors import OperatorError
from ._models import (
    ActionParams,
    ApplyEdits,
    Command,
    Delete,
    DeleteRegion,
    Edit,
    GetCommentStyle,
    GetInterfaceSpec,
    InsertAfter,
    InsertBefore,
    InsertRegion,
    ListDir,
    ListRegions,
    Patch,
    Read,
    ReadRegion,
    ReadSlice,
    ReplaceAll,
    ReplaceFirst,
    ReplaceRange,
    ReplaceRegion,
    ScanError,
    ScanResult,
    Search,
    SearchTree,
    Stat,
    Write,
)
from ._results import (
    Result,
    error_result,
    format_result,
    format_results,
    parse_results,
    read_too_large,
)
from ._scanner import scan
from ._spec import ACTIONS, DELETE_ACTIONS, READ_ACTIONS, WRITE_ACTIONS, interface_spec

__all__ = [
    "ACTIONS",
    "CELL_ACTIONS",
    "CELL_READ_ACTIONS",
    "CELL_WRITE_ACTIONS",
    "DELETE_ACTIONS",
    "EXTENSIONS",
    "READ_ACTIONS",
    "WRITE_ACTIONS",
    "ActionParams",
    "ApplyEdits",
    "Command",
    "CommentStyle",
    "Delete",
    "DeleteCell",
    "DeleteRegion",
    "Edit",
    "GetCommentStyle",
    "GetInterfaceSpec",
    "InsertAfter",
    "InsertBefore",
    "InsertCell",
    "InsertRegion",
    "ListDir",
    "ListRegions",
    "MoveCell",
    "OperatorError",
    "Patch",
    "Read",
    "ReadCells",
    "ReadRegion",
    "ReadSlice",
    "ReplaceAll",
    "ReplaceCell",
    "ReplaceFirst",
    "ReplaceRange",
    "ReplaceRegion",
    "Result",
    "ScanError",
    "ScanResult",
    "Search",
    "SearchTree",
    "Stat",
    "StyleOverride",
    "Write",
    "actions_of",
    "all_styles",
    "check_extensions",
    "codes",
    "decode_b64_text",
    "encode_b64_text",
    "error_result",
    "format_result",
    "format_results",
    "interface_spec",
    "parse_edits",
    "parse_results",
    "read_too_large",
    "resolve_style",
    "scan",
    "style_for_language",
    "style_for_path",
]
