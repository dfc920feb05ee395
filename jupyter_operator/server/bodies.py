"""The REST request bodies, validated with pydantic.

Imported by the handlers on the first request that has a body, so loading the extension does
not load pydantic (a server's start stays quick). Unknown fields are refused and nothing is
coerced: ``{"text": 1}`` is a ``bad_request``, not the text ``"1"``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Body(BaseModel):
    """A strict, frozen request body (unknown fields are an error)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ScanBody(Body):
    """``POST scan``."""

    text: str
    workspace: str = "default"
    folder: str | None = None
    dialect: Literal["auto", "operator", "json", "commands"] = "auto"
    #: Who proposes, for people (the panel names it on the cards): at most one line.
    label: Annotated[str, Field(max_length=200, pattern=r"^[^\r\n]*$")] | None = None
    #: A review copy: relative path -> base64 bytes. The reply is previewed against these files
    #: in a private folder of the server's, never in ``workspace`` (see ``add_review``).
    files: dict[str, str] | None = None


class RoomEditBody(Body):
    """``POST rooms``: a kernel's approved change to a file open in a collaborative room, as
    the cell edits of a notebook (``edits``) or a text file's previewed and new text."""

    #: The file, absolute (as the kernel's workspace names it).
    path: Annotated[str, Field(min_length=1, max_length=4096)]
    #: The name collaborators see for the agent: one line.
    actor: Annotated[str, Field(max_length=200, pattern=r"^[^\r\n]*$")] = "Operator"
    edits: dict[str, Any] | None = None
    before: str | None = None
    after: str | None = None


class DecideBody(Body):
    """``POST sessions/{session}/decide``."""

    id: str
    decision: Literal["approve", "reject"]
    reason: str | None = None
    content: str | None = None  # the person's edit of the new content (approve only)
    and_run: bool = False  # Approve & Run: apply a cell change, then run the cell


class StepBody(Body):
    """What the open notebook's kernel did with one cell (``execution.Outcome``)."""

    status: Literal["ok", "error", "timeout", "interrupted", "kernel_died", "stale",
                    "unavailable"]  # fmt: skip
    execution_count: int | None = None
    duration_ms: int = Field(default=0, ge=0)
    outputs: list[dict[str, Any]] = Field(default_factory=list, max_length=500)
    kernel_identity: str | None = Field(default=None, max_length=200)
    message: str = Field(default="", max_length=2000)


class OutcomeBody(StepBody):
    """``POST sessions/{session}/items/{item}/execution``: what the open notebook's kernel did
    with a run, posted by the panel; a rebuild's ``steps`` are checked like the run itself."""

    steps: list[StepBody] = Field(default_factory=list, max_length=500)


class LiveAnswerBody(Body):
    """``POST sessions/{session}/items/{item}/live``: what the page holding the notebook did
    with an approved change (``engine.live_route.finish``)."""

    state: Literal["applied", "stale", "gone"]
    cell: str | None = Field(default=None, max_length=200)


class OpenNotebooksBody(Body):
    """``POST open-notebooks``: the notebooks a page has open, relative to the server's root;
    ``closing``: the page is going away."""

    page: str = Field(min_length=8, max_length=100)
    paths: list[Annotated[str, Field(max_length=4096)]] = Field(default_factory=list,
                                                                 max_length=1000)
    closing: bool = False


class DecideAllBody(Body):
    """``POST sessions/{session}/decide-all``."""

    decision: Literal["approve", "reject"]
    reason: str | None = None


class UndoBody(Body):
    """``POST undo`` and ``POST redo``."""

    workspace: str = "default"
    id: str | None = None
    session: str | None = None  # the session the client shows, to update it too
    folder: str | None = None  # a subfolder's own history (see ``POST scan``)
    #: The page's answer to an undo or redo the server sent it (``live`` of the first answer).
    live: LiveAnswerBody | None = None


class UndoRunBody(Body):
    """``POST undo-run``: undo every change of one run (``preview``: only list them)."""

    workspace: str = "default"
    run: str = Field(min_length=1, max_length=200)
    folder: str | None = None
    preview: bool = False
    #: The page's answer to the cell edits of the first answer's ``live`` (an open notebook).
    live: LiveAnswerBody | None = None


class FixCellBody(Body):
    """One cell of the notebook a fix is asked for, as open in the page."""

    cell_type: str = Field(default="code", max_length=20)
    id: str | None = Field(default=None, max_length=200)
    source: str = Field(default="", max_length=1_000_000)


class FixBody(Body):
    """``fix`` of ``POST agent/runs``: a cell whose run ended in an error ("Fix with Operator").

    ``notebook`` is relative to the workspace; ``outputs`` are the cell's nbformat outputs."""

    notebook: str = Field(max_length=4096)
    cell_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")  # nbformat's cell id
    cell_index: int = Field(ge=0)
    source: str = Field(max_length=1_000_000)
    outputs: list[dict[str, Any]] = Field(default_factory=list, max_length=500)
    cells: list[FixCellBody] = Field(default_factory=list, max_length=5000)


class FileMention(Body):
    """A workspace file mentioned with ``@`` in the Ask box (the server reads it, jailed)."""

    kind: Literal["file"]
    path: str = Field(min_length=1, max_length=4096)


class CellMention(Body):
    """A cell of the open notebook mentioned with ``@``, as the page shows it."""

    kind: Literal["cell"]
    notebook: str = Field(max_length=4096)
    index: int = Field(ge=0)
    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_-]{1,64}$")  # nbformat's cell id
    cell_type: str = Field(default="code", pattern=r"^(code|markdown|raw)$")
    source: str = Field(default="", max_length=1_000_000)
    outputs: list[dict[str, Any]] = Field(default_factory=list, max_length=500)


class AskBody(Body):
    """``POST agent/runs``: a task, or a fix (its task is written by the server; ``task``
    adds the person's words). ``model`` names an endpoint (else the server's default); the
    budgets stop the run cleanly when reached; ``thread`` is the Ask view's thread it follows;
    ``attachments`` are the files and cells mentioned with ``@`` (server/mentions.py)."""

    task: str = ""
    workspace: str = "default"
    fix: FixBody | None = None
    attachments: list[Annotated[FileMention | CellMention, Field(discriminator="kind")]] = Field(
        default_factory=list, max_length=20)
    thread: str | None = Field(default=None, min_length=1, max_length=4200)
    model: str | None = None
    max_tokens: Annotated[int, Field(gt=0)] | None = None
    max_cost: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None


class ThreadBody(Body):
    """``POST agent/threads``: start the Ask view's thread ``key`` afresh."""

    workspace: str = "default"
    key: str = Field(min_length=1, max_length=4200)


class EndpointBody(Body):
    """``POST agent/models``: a named endpoint; its key typed (``api_key``, stored on the
    server, never sent back) or named (``key_env``, a variable of the server's environment),
    or neither (``$OPENAI_API_KEY``, or none for a local server)."""

    name: Annotated[str, Field(max_length=64)]
    base_url: Annotated[str, Field(max_length=2048)]
    model: Annotated[str, Field(max_length=256)]
    api_key: Annotated[str, Field(max_length=4096)] | None = None
    key_env: Annotated[str, Field(max_length=128)] = ""


class AliveBody(Body):
    """``POST sessions/{session}/items/{item}/execution/alive``: the page still runs the cell,
    or (``gone``) it is going away and the run ends now, as interrupted."""

    gone: bool = False


class AnswerBody(Body):
    """``POST agent/runs/{run}/answer``: the person's answer to the model's question."""

    text: str
