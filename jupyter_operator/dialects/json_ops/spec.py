"""What a model reads to write JSON operations (the agent's system prompt in the ``json``
dialect); docs/protocol.md ("JSON operations") is the full reference."""

from __future__ import annotations

from .parse import MAX_EDITS, MAX_OPERATIONS

SPEC = f"""\
JSON OPERATIONS

Ask for work with one JSON operation object, a list of them, or {{"operations": [...]}}, as
your whole reply or inside a fenced ```json block. Strict JSON: no comments, no trailing
commas, no duplicate keys. At most {MAX_OPERATIONS} operations per reply; they run in order.

Operations (every one may carry an "id": 1 to 128 of A-Z a-z 0-9 _ . : -, unique in the reply):
- {{"type": "message", "content": "..."}}: a note to the person.
- {{"type": "createFile", "path": "p", "content": "...", "overwrite": false, "encoding": "utf-8"}}:
  create a file ("encoding": "base64" for bytes); an existing file needs "overwrite": true.
- {{"type": "readFile", "path": "p", "encoding": "utf-8"}}: read up to 1 MiB of a file.
- {{"type": "editFile", "path": "p", "edits": [{{"oldContent": "...", "newContent": "..."}}]}}:
  1 to {MAX_EDITS} edits, applied in order, all or nothing; each oldContent must occur exactly
  once in the file as the earlier edits left it (add surrounding text to make it unique).
- {{"type": "deleteFile", "path": "p"}}: delete a file (undoable).
- {{"type": "shell", "command": "...", "cwd": ".", "timeout": 60000}}: run a command in the
  sandbox (timeout in ms).

Paths are relative to the workspace root, without "..". Each operation is answered by one
response event in a JSON list: {{"type": "createFile", "path", "success", "bytesWritten"}},
{{"type": "readFile", "path", "success", "content", "size", "encoding"}}, {{"type": "editFile",
"path", "success", "editsApplied"}}, {{"type": "deleteFile", "path", "success"}}, {{"type":
"shell", "command", "success", "exitCode", "stdout", "stderr", "durationMs"}}. A failure has
"success": false, "error" (one sentence) and "code" (ERR_*). A change the person rejects is
answered with "code": "ERR_REJECTED" and their reason.
"""
