"""The open document of a string-command session: /open, /back, /refresh, /close, /verify.

``DocumentCommands`` is mixed into ``CommandSession``. It keeps the document open now and the back
stack, and shows a file or one Markdown #block of it; the reads go through the session's
``_read_bytes`` (the jail, the read rules and the script's output budget). Apart from
``session.py`` so the session's running and dispatch read on their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...dialects.commands import blocks, codes, responses
from ...dialects.commands.parse import CommandError, Request, split_address
from ...protocol import OperatorError
from ...protocol import codes as operator_codes
from ...workspace import FileTooLarge, decode_text
from .replies import Reply


def join_address(path: str, block: str | None) -> str:
    """``path#block``, or the path alone (the inverse of ``split_address``)."""
    return f"{path}#{block}" if block is not None else path


class DocumentCommands:
    """Mixed into ``CommandSession``: the commands that open documents and move between them."""

    document: tuple[str, str | None] | None  # (path, block) open now
    back: list[tuple[str, str | None]]

    if TYPE_CHECKING:  # provided by CommandSession (and its SessionCommands)

        def _read_bytes(self, path: str) -> bytes: ...

        def _done(self, rid: str, request: Request, system: str, content: str | None = None,
                  document: str | None = None, path: str | None = None) -> Reply: ...  # fmt: skip

    def _read(self, path: str) -> str:
        try:
            data = self._read_bytes(path)
        except FileTooLarge as exc:
            message = f"{path} has {exc.size} bytes; open one #block of it instead."
            raise CommandError("FILE_TOO_LARGE", message) from None
        except OperatorError as exc:
            if exc.code == operator_codes.ERR_NOT_FOUND:
                raise CommandError(codes.NOT_FOUND, f"File not found: {path}") from None
            raise
        return decode_text(data, path).text

    def _load(self, path: str, block: str | None) -> tuple[str, list[str], int]:
        """(whole text, the lines shown, first line number) of a document or one block."""
        text = self._read(path)
        lines = blocks.split(text)
        if block is None:
            return text, lines, 1
        if not blocks.is_markdown(path):
            raise CommandError(codes.NOT_MARKDOWN, f"{path} is not Markdown; #blocks are headings.")
        found = blocks.find(text, block, path)
        return text, lines[found.start : found.end], found.start + 1

    def _target(self, name: str, arg: str) -> tuple[str, str | None]:
        if not arg.strip():
            raise CommandError(codes.USAGE, f"/{name} needs a path: /{name} path[#block].")
        return split_address(arg)

    def _show(self, rid: str, request: Request, verb: str, path: str, block: str | None) -> Reply:
        _, lines, _ = self._load(path, block)
        document = "\n".join(lines)
        return self._done(rid, request, f"{verb} {join_address(path, block)}",
                          responses.readable(document), document, path)  # fmt: skip

    def _open_document(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._target("open", arg)
        reply = self._show(rid, request, "Opened", path, block)
        if self.document is not None and self.document != (path, block):
            self.back.append(self.document)
        self.document = (path, block)
        return reply

    _cmd_open = _open_document

    def _cmd_back(self, rid: str, request: Request, arg: str) -> Reply:
        if arg:
            raise CommandError(codes.USAGE, "/back takes no arguments.")
        if not self.back:
            raise CommandError(codes.NO_HISTORY, "no earlier document to go back to.")
        path, block = self.back[-1]
        reply = self._show(rid, request, "Back to", path, block)
        self.back.pop()
        self.document = (path, block)
        return reply

    def _open_now(self, name: str) -> tuple[str, str | None]:
        if self.document is None:
            raise CommandError(codes.NO_DOCUMENT, f"no document is open; /open one before /{name}.")
        return self.document

    def _open_name(self) -> str | None:
        return join_address(*self.document) if self.document else None

    def _cmd_refresh(self, rid: str, request: Request, arg: str) -> Reply:
        return self._show(rid, request, "Refreshed", *self._open_now("refresh"))

    def _cmd_close(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._open_now("close")
        self.document = None
        return self._done(rid, request, f"Closed: {join_address(path, block)}")

    def _cmd_verify(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._target("verify", arg)
        if block is None:
            raise CommandError(codes.USAGE, "/verify needs a block: /verify path#block.")
        _, lines, _ = self._load(path, block)
        return self._done(rid, request, f"Verified {path}#{block}", responses.preview(lines))
