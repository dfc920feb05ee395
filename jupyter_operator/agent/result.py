"""How an agent's run ended: what ``Agent.run`` returns (``loop``) and ``Control`` waits for."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class AgentResult:
    """How a run ended."""

    reason: str  # one of events.STOP_REASONS
    message: str
    turns: int
    tokens: int
    transcript_path: Path | None
    #: Model replies: more than ``turns`` when a reply cut off inside a block was continued.
    replies: int = 0
    #: The tokens are estimates (an offline model reports no usage), not an endpoint's count.
    tokens_estimated: bool = False
    #: For a ``budget`` stop, the limit the run reached (``budgets.LIMITS``).
    budget: str | None = None
    #: USD spent, from the tokens and the model's ``price`` (None without a price).
    cost: float | None = None

    def __repr__(self) -> str:
        return (
            f"<AgentResult {self.reason}: {self.message} turns={self.turns} tokens={self.tokens}>"
        )
