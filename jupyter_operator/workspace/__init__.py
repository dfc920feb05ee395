"""The workspace layer: every file-system call, and the pure text transforms.

- :class:`Workspace` - the jail (lexical check, then descriptor walks from an open root),
  bounded reads, the one atomic write path, tree search, moves to and from the trash.
- Text transforms (str in, str out, raising ``OperatorError``): ``decode_text``/``encode_text``,
  ``apply_edits``, ``apply_patch``, regions, ``search_lines``, ``unified_diff``,
  ``diff_with_stats``, ``diff_stats``, ``validate_notebook``.
- ``Journal``/``HistoryEntry`` - the undo journal and trash (``journal.py``, ``journal_paths.py``,
  checked as untrusted input), whose folder every ``Workspace`` reserves; ``locks.py`` - the
  cross-process file locks.
"""

from __future__ import annotations

from .apply_edits import apply_edits
from .budget import MAX_PLANNED_BYTES, check_size, utf8_len
from .diff import Diff, diff_stats, diff_with_stats, unified_diff
from .dirs import working_dir
from .empty_dirs import remove_empty_parents
from .errors import FileTooLarge
from .folder import PartialDelete, Workspace
from .journal import DERIVED_DIFF_BYTES, HistoryEntry, Journal, history_diff
from .notebook import ERR_INVALID_NOTEBOOK, is_notebook, validate_notebook
from .patch import apply_patch
from .paths import (
    DEFAULT_PROTECTED,
    TEMP_PREFIX,
    canonical_path,
    display_name,
    normalize_path,
    parse_path,
    path_key,
    paths_overlap,
)
from .records import DirEntry, Limits, Snapshot, StatInfo, TreeSearch
from .regions import (
    Region,
    delete_region,
    insert_region,
    list_regions,
    read_region,
    replace_region,
)
from .rules_file import inside, read_rules_file
from .text import TextFile, decode_text, encode_text, search_lines, split_lines

__all__ = [
    "DEFAULT_PROTECTED",
    "DERIVED_DIFF_BYTES",
    "ERR_INVALID_NOTEBOOK",
    "MAX_PLANNED_BYTES",
    "TEMP_PREFIX",
    "Diff",
    "DirEntry",
    "FileTooLarge",
    "HistoryEntry",
    "Journal",
    "Limits",
    "PartialDelete",
    "Region",
    "Snapshot",
    "StatInfo",
    "TextFile",
    "TreeSearch",
    "Workspace",
    "apply_edits",
    "apply_patch",
    "canonical_path",
    "check_size",
    "decode_text",
    "delete_region",
    "diff_stats",
    "diff_with_stats",
    "display_name",
    "encode_text",
    "history_diff",
    "insert_region",
    "inside",
    "is_notebook",
    "list_regions",
    "normalize_path",
    "parse_path",
    "path_key",
    "paths_overlap",
    "read_region",
    "read_rules_file",
    "remove_empty_parents",
    "replace_region",
    "search_lines",
    "split_lines",
    "unified_diff",
    "utf8_len",
    "validate_notebook",
    "working_dir",
]

