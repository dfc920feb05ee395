"""``OpenAIChat``: any OpenAI-compatible chat-completions endpoint, through the official SDK.

OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio, OpenRouter: anything that speaks
``/v1/chat/completions`` with server-sent events. Configured by arguments or the environment
(``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``JUPYTER_OPERATOR_MODEL``). The key is handed to
the SDK's client and nowhere else: it is not an attribute of this object, not in its repr,
and no message this module produces contains it (faults become fixed sentences, never the
text of the SDK's exception, which can quote a response body or a request).
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from .models import Message, ModelError, Usage

log = logging.getLogger(__name__)

ENV_MODEL = "JUPYTER_OPERATOR_MODEL"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Local servers (Ollama, llama.cpp, vLLM) take any key; the SDK insists on one.
PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True)
class SettingHints:
    """How the person of one front gives a missing setting: the sentence for a missing model
    or key names that front's own option (``--model`` on the command line,
    ``c.OperatorAgent.model`` on the server), not the Python argument."""

    #: completes "No model named: ... or set $JUPYTER_OPERATOR_MODEL."
    model: str = "pass model=..."
    #: completes "No API key for <endpoint>: set $OPENAI_API_KEY ..."
    api_key: str = "or pass api_key=..."


def endpoint_name(base_url: str) -> str:
    """``host[:port]`` of a base URL: what people and transcripts see (no user, no query)."""
    parts = urlsplit(base_url)
    host = parts.hostname or "unknown"
    return f"{host}:{parts.port}" if parts.port else host


def _is_local(base_url: str) -> bool:
    return (urlsplit(base_url).hostname or "") in ("localhost", "127.0.0.1", "::1")


def retry_after(response: Any) -> float | None:
    """The seconds an HTTP response asks to wait (``retry-after-ms``, else ``Retry-After`` in
    seconds or as a date), None when it does not say or says nonsense (negative, not finite)."""
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            if name == "retry-after-ms":
                continue
            try:  # an HTTP date
                seconds = parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError, IndexError, OverflowError):
                return None
        return max(0.0, seconds) if math.isfinite(seconds) else None
    return None


def describe_fault(exc: BaseException, *, model: str, endpoint: str, timeout: float) -> ModelError:
    """The one sentence for an endpoint fault (never the exception's own text)."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return ModelError(
            "timeout", f"The endpoint {endpoint} did not answer within {timeout:g} seconds."
        )
    if isinstance(exc, openai.APIConnectionError):
        return ModelError(
            "connection",
            f"Could not connect to the endpoint {endpoint}: "
            "is the server running and the address right?",
        )
    if isinstance(exc, openai.AuthenticationError):
        return ModelError(
            "auth", f"The endpoint {endpoint} refused the API key (401): check {ENV_API_KEY}."
        )
    if isinstance(exc, openai.PermissionDeniedError):
        return ModelError("auth", f"The endpoint {endpoint} refused access (403) for this key.")
    if isinstance(exc, openai.NotFoundError):
        return ModelError(
            "not_found", f"The endpoint {endpoint} does not know the model {model!r} (404)."
        )
    if isinstance(exc, openai.RateLimitError):
        return ModelError(
            "rate_limit",
            f"The endpoint {endpoint} is limiting requests (429), "
            "still after retries; wait a moment and run again.",
            retry_after=retry_after(getattr(exc, "response", None)),
        )
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status >= 500:
            return ModelError(
                "server",
                f"The endpoint {endpoint} failed (HTTP {status}), "
                "still after retries; try again later.",
            )
        return ModelError(
            "bad_request", f"The endpoint {endpoint} refused the request (HTTP {status})."
        )
    return ModelError("cut", f"The connection to {endpoint} broke off in the middle of the reply.")


class _Reply:
    """One streamed chat completion."""

    def __init__(self, chat: OpenAIChat, messages: Sequence[Message]) -> None:
        self._chat = chat
        self._messages = [dict(m) for m in messages]
        self._stream: Any = None
        self.usage: Usage | None = None
        self.finish_reason: str | None = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def _deltas(self) -> AsyncIterator[str]:
        chat = self._chat
        started = False
        try:
            self._stream = await chat.client.chat.completions.create(
                model=chat.name,
                messages=self._messages,
                stream=True,
                stream_options={"include_usage": True},
                **chat.options,
            )
            started = True
            async for chunk in self._stream:
                usage = getattr(chunk, "usage", None)
                if usage is not None:
                    self.usage = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)
                for choice in chunk.choices or ():
                    if choice.finish_reason:
                        self.finish_reason = choice.finish_reason
                    delta = choice.delta.content if choice.delta is not None else None
                    if delta:
                        yield delta
        except ModelError:
            raise
        except Exception as exc:
            if _is_cancel(exc):
                raise
            # The type only: an exception's text may quote the request.
            log.info("model endpoint fault: %s", type(exc).__name__)
            if started:  # the reply had begun: whatever broke, it broke mid-reply
                raise ModelError(
                    "cut",
                    f"The connection to {chat.endpoint} broke off in the middle of the reply.",
                ) from None
            raise chat.fault(exc) from None
        if self.finish_reason is None:  # the stream ended without saying why: it was cut
            raise ModelError(
                "cut",
                f"The endpoint {chat.endpoint} closed the stream before the reply was finished.",
            )

    async def aclose(self) -> None:
        if self._stream is not None:
            try:
                await self._stream.close()
            except Exception:  # closing a broken stream must not hide why it broke
                log.debug("closing the stream failed", exc_info=False)


def _is_cancel(exc: BaseException) -> bool:
    import asyncio

    return isinstance(exc, asyncio.CancelledError)


class OpenAIChat:
    """A chat model behind an OpenAI-compatible endpoint, streamed with the async SDK.

    ``model`` (else ``$JUPYTER_OPERATOR_MODEL``), ``base_url`` (else ``$OPENAI_BASE_URL``, else
    OpenAI's), ``api_key`` (else ``$OPENAI_API_KEY``; a placeholder for local servers).
    ``timeout`` seconds per request and ``max_retries`` (the SDK retries 429 and 5xx with
    backoff); ``hints`` say how the caller's person gives a missing model or key. Other keyword
    arguments (``temperature``, ``max_tokens``, ...) go to every request.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        hints: SettingHints = SettingHints(),
        **options: Any,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise ModelError(
                "config",
                "The openai package is not installed: pip install 'jupyter-operator[agent]'.",
            ) from None
        name = model or os.environ.get(ENV_MODEL)
        if not name:
            raise ModelError("config", f"No model named: {hints.model} or set ${ENV_MODEL}.")
        self.name = name
        url = base_url or os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
        self.base_url = url
        self.endpoint = endpoint_name(url)
        self.timeout = timeout
        self.options = options
        key = api_key or os.environ.get(ENV_API_KEY)
        if not key:
            if not _is_local(url):
                raise ModelError(
                    "config",
                    f"No API key for {self.endpoint}: set ${ENV_API_KEY} {hints.api_key}.",
                )
            key = PLACEHOLDER_KEY
        # The key lives only in this closure and in the SDK's client: not an attribute here.
        self._new_client = lambda: openai.AsyncOpenAI(
            api_key=key, base_url=url, timeout=timeout, max_retries=max_retries
        )
        self._client: Any = None

    @property
    def client(self) -> Any:
        """The SDK's async client (made on first use; ``aclose`` ends it)."""
        if self._client is None:
            self._client = self._new_client()
        return self._client

    async def aclose(self) -> None:
        """Close the client's connections (the agent calls this when a run ends).

        Its connections belong to the event loop of that run; the next run makes a new client.
        """
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    def __repr__(self) -> str:
        return f"<OpenAIChat model={self.name!r} endpoint={self.endpoint!r}>"

    def describe(self) -> str:
        """``model at endpoint`` (never the key)."""
        return f"{self.name} at {self.endpoint}"

    def fault(self, exc: BaseException) -> ModelError:
        """The sentence for a fault of this endpoint."""
        return describe_fault(exc, model=self.name, endpoint=self.endpoint, timeout=self.timeout)

    def stream(self, messages: Sequence[Message]) -> _Reply:
        """Ask for one reply; iterate the result for its text deltas."""
        return _Reply(self, messages)
