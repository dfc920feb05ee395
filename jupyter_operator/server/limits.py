"""Size limits of the server's APIs (plain numbers: the extension reads them at load)."""

from __future__ import annotations

#: Largest file content the file API reads or writes (the protocol's 1 MB).
MAX_FILE_SIZE = 1_048_576
#: Longest base64 text that can decode to at most MAX_FILE_SIZE bytes; checked before decoding.
MAX_B64_CHARS = 4 * -(-MAX_FILE_SIZE // 3)
#: About 1.5 MB: a 1 MiB file in base64 (1,398,104 characters) plus the JSON around it.
DEFAULT_MESSAGE_LIMIT = 1_572_864
