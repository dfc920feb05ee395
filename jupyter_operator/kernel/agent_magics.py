"""``%%operator_agent`` (a task run by a model in the loop) and ``%operator model``.

The cell displays the run and returns at once: the run is an asyncio task on the kernel's
event loop, so clicks on its cards (and other cells) are handled while it waits for decisions.
The endpoint's key is read from the kernel's environment by the SDK; it is never shown,
stored in the notebook or written to a transcript.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.utils.process import arg_split

from .live_runs import CommRunner, OwnPage, own_notebook
from .operators import session
from .server_rooms import ServerRoomEdits, ServerRooms

if TYPE_CHECKING:
    from ..agent import Agent, Model
    from ..agent.endpoints import Endpoint

USAGE = """\
%%operator_agent [--model NAME] [--max-turns N] [--policy POLICY] [--replay FILE] [--root DIR]
                [--max-tokens N] [--max-cost USD --price IN[,OUT]] [--max-seconds S]
    the cell body is the task; the model proposes commands, you approve, results go back;
    the run stops at a budget (the price is USD per million prompt[, completion] tokens)
%operator model                       show the endpoint and model the agent uses, and the named
                                      endpoints (the panel's list: added with "Add model")
%operator model NAME                  use the named endpoint NAME (its key stays where it is)
%operator model NAME [--base-url URL] else: NAME is a model (the key stays in OPENAI_API_KEY)"""

NO_LOOP_REASON = "this IPython has no running event loop to wait for a decision in."


@dataclass
class AgentSettings:
    """What ``%operator model`` set for this kernel (None: the environment's values)."""

    model: str | None = None
    base_url: str | None = None
    #: A named endpoint of the shared list (``agent.endpoints``) chosen by name.
    endpoint: str | None = None
    #: The agent of the latest ``%%operator_agent`` cell, and its display.
    last_agent: Any = None
    last_view: Any = None

    def model_name(self) -> str | None:
        return self.model or os.environ.get("JUPYTER_OPERATOR_MODEL")

    def base(self) -> str:
        from ..agent.openai_chat import DEFAULT_BASE_URL

        return self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL


SETTINGS = AgentSettings()


def _split(line: str) -> list[str]:
    try:
        return arg_split(line, posix=not sys.platform.startswith("win"))
    except ValueError as exc:
        raise UsageError(f"operator_agent: cannot read the options ({exc})") from None


def _options(args: list[str], names: dict[str, str], magic: str) -> dict[str, str]:
    """``--name VALUE`` / ``--name=VALUE`` pairs; anything else is a usage error."""
    found: dict[str, str] = {}
    tokens = iter(args)
    for token in tokens:
        name, eq, value = token.partition("=")
        if name not in names:
            raise UsageError(f"{magic}: unexpected {token!r}\n{USAGE}")
        if not eq:
            value = next(tokens, None)  # type: ignore[assignment]
            if value is None:
                raise UsageError(f"{magic}: {name} needs {names[name]}")
        found[name] = value
    return found


def _saved_endpoints() -> list[Endpoint]:
    """The named endpoints of the shared list (the panel's "Add model"); a store that cannot
    be read is said as a usage error."""
    from ..agent.endpoints import EndpointStore

    try:
        return EndpointStore().saved()
    except ValueError as exc:
        raise UsageError(f"operator model: the saved endpoints cannot be read ({exc})") from None


def _named(name: str | None) -> Endpoint | None:
    return next((e for e in _saved_endpoints() if e.name == name), None) if name else None


def model_command(args: list[str]) -> None:
    """``%operator model [NAME] [--base-url URL]``: show or set the agent's endpoint and model.

    A NAME of the shared list of endpoints (what the panel's "Add model" saved) picks that
    endpoint; any other NAME is a model name at ``--base-url`` (else ``$OPENAI_BASE_URL``).
    """
    from ..agent.openai_chat import ENV_API_KEY, endpoint_name

    if args:
        name = args[0] if not args[0].startswith("-") else None
        opts = _options(args[1:] if name else args, {"--base-url": "a URL"}, "operator model")
        named = _named(name) if "--base-url" not in opts else None
        SETTINGS.endpoint = named.name if named is not None else None
        if name and named is None:
            SETTINGS.model = name
        if "--base-url" in opts:
            SETTINGS.base_url = opts["--base-url"]
    saved = _saved_endpoints()
    chosen = next((e for e in saved if e.name == SETTINGS.endpoint), None)
    if chosen is not None:
        print(f"endpoint: {chosen.name} ({chosen.model} at {chosen.endpoint})")
        print(f"key:      {chosen.key_source()}")
    else:
        key = "set" if os.environ.get(ENV_API_KEY) else "not set (fine for local servers)"
        print("model:    "
              f"{SETTINGS.model_name() or '(none: %operator model NAME, or --replay FILE)'}")
        print(f"endpoint: {endpoint_name(SETTINGS.base())}")
        print(f"key:      {ENV_API_KEY} {key}")
    if saved:  # the list the panel's picker shows (never a key)
        print("named endpoints (%operator model NAME):")
        for endpoint in saved:
            mark = "*" if endpoint is chosen else " "
            print(f" {mark} {endpoint.name}: {endpoint.model} at {endpoint.endpoint} "
                  f"(key: {endpoint.key_source()})")  # fmt: skip


def build_model(opts: dict[str, str]) -> Model:
    """The model for a cell: ``--replay FILE``, else an OpenAI-compatible endpoint."""
    from ..agent import ModelError, OpenAIChat, ReplayModel
    from ..agent.openai_chat import SettingHints

    if "--replay" in opts:
        try:
            return ReplayModel(opts["--replay"])
        except (OSError, ValueError) as exc:
            raise UsageError(f"operator_agent: cannot read the replay file ({exc})") from None
    named = _named(opts.get("--model", SETTINGS.endpoint))
    if named is not None:  # a named endpoint: its own base URL and key
        from ..agent.endpoints import EndpointStore
        from ..agent.endpoints import build_model as build_endpoint

        try:
            return build_endpoint(named, EndpointStore())  # type: ignore[no-any-return]
        except (ModelError, ValueError) as exc:
            message = exc.message if isinstance(exc, ModelError) else str(exc)
            raise UsageError(f"operator_agent: {message}") from None
    name = opts.get("--model") or SETTINGS.model_name()
    if not name:
        raise UsageError(
            "operator_agent: no model: pass --model NAME, set one with "
            "%operator model NAME, or use --replay FILE"
        )
    try:
        # The kernel's environment is the Jupyter server's, where the key belongs.
        hints = SettingHints(api_key="in the environment of the Jupyter server")
        return OpenAIChat(name, base_url=SETTINGS.base(), hints=hints)
    except ModelError as exc:
        raise UsageError(f"operator_agent: {exc.message}") from None


def budget_options(opts: dict[str, str]) -> dict[str, Any]:
    """``--max-tokens``, ``--max-cost``, ``--max-seconds`` and ``--price`` as ``Agent``'s
    keywords; a usage error names the option (and a cost budget without a price)."""
    from ..agent.budgets import check_limits

    found: dict[str, Any] = {}
    kinds = {"--max-tokens": ("max_tokens", int), "--max-cost": ("max_cost", float),
             "--max-seconds": ("max_seconds", float)}  # fmt: skip
    for option, (name, kind) in kinds.items():
        if option in opts:
            try:
                found[name] = kind(opts[option])
            except ValueError:
                raise UsageError(f"operator_agent: {option} needs a positive number") from None
    if "--price" in opts:
        try:
            parts = [float(n) for n in opts["--price"].split(",")]
        except ValueError:
            parts = []
        if len(parts) not in (1, 2):
            raise UsageError("operator_agent: --price is IN or IN,OUT (USD per million tokens)")
        found["price"] = parts[0] if len(parts) == 1 else (parts[0], parts[1])
    try:
        check_limits(**found)
    except ValueError as exc:
        message = str(exc).replace("price=IN or (IN, OUT); --price on the command line",
                                   "--price IN or --price IN,OUT")  # fmt: skip
        raise UsageError(f"operator_agent: {message}") from None
    return found


def start_agent(agent: Agent, task: str) -> Any:
    """Run ``agent`` on the kernel's loop and return at once; without a loop, run it here."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:
        return agent.start(task)
    # A terminal IPython has no loop running between cells: nobody could click, so changes a
    # rule does not decide are refused with a reason the model can read.
    if agent.decide is None:
        agent.decide = lambda run: run.reject_all(reason=NO_LOOP_REASON)
    return agent.run_sync(task)


@magics_class
class AgentMagics(Magics):
    """``%%operator_agent``."""

    @cell_magic
    def operator_agent(self, line: str, cell: str) -> Any:
        """Run the task in the cell body with a model in the loop.

        %%operator_agent [--model NAME] [--max-turns N] [--policy POLICY] [--replay FILE]
                         [--root DIR] [--max-tokens N] [--max-cost USD --price IN[,OUT]]
                         [--max-seconds S]
        """
        from IPython.display import display

        from ..agent import Agent
        from ..engine import Policy
        from ..widgets.agent_view import AgentView
        from .run_display import widget_for

        names = {
            "--model": "a model name",
            "--max-turns": "a number",
            "--policy": "a policy",
            "--replay": "a file",
            "--root": "a folder",
            "--max-tokens": "a number",
            "--max-cost": "an amount in USD",
            "--max-seconds": "a number",
            "--price": "IN or IN,OUT (USD per million tokens)",
        }
        opts = _options(_split(line), names, "operator_agent")
        task = cell.strip()
        if not task:
            raise UsageError("operator_agent: the cell body is the task; it is empty")
        try:
            max_turns = int(opts.get("--max-turns", "10"))
            if max_turns < 1:
                raise ValueError
        except ValueError:
            raise UsageError("operator_agent: --max-turns needs a positive number") from None
        budgets = budget_options(opts)
        try:
            policy = (
                Policy.parse(opts["--policy"]) if "--policy" in opts else session().current_policy()
            )
            root = session().resolve_root(opts.get("--root"))
        except ValueError as exc:
            raise UsageError(f"operator_agent: {exc}") from None
        model = build_model(opts)
        extensions = session().extensions
        notebook = own_notebook(root)

        def operator() -> Any:  # cells run in the open notebook (kernel/live_runs.py)
            from ..engine import Operator

            op = Operator(root, policy=policy, extensions=extensions, runner=CommRunner(root))
            op.pages = OwnPage(root)  # changes to the notebook are applied in its page
            op.room_holders = ServerRooms()  # never written beneath a collaborative room
            op.rooms = ServerRoomEdits(beside=op.pages)  # other files' rooms: by the server
            return op

        agent = Agent(model, root=root, policy=policy, max_turns=max_turns,
                      extensions=extensions, operator_factory=operator, **budgets)  # fmt: skip
        shown = task
        if notebook is not None and "nb" in extensions:
            task += (f"\n\n(This request was typed in the notebook {notebook}; nb.runCell runs "
                     "its cells in its live kernel, where the person sees the outputs.)")
        view = AgentView(agent, task=shown, cards=widget_for)
        SETTINGS.last_agent, SETTINGS.last_view = agent, view
        display(view)
        start_agent(agent, task)
        return None


def register(ipython: Any) -> None:
    """Register ``%%operator_agent`` (called from ``%load_ext jupyter_operator``)."""
    ipython.register_magics(AgentMagics)


def unregister(ipython: Any) -> None:
    ipython.magics_manager.magics["cell"].pop("operator_agent", None)


def last_agent() -> Agent | None:
    """The agent of the latest ``%%operator_agent`` cell in this kernel."""
    return SETTINGS.last_agent
