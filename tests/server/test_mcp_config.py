"""``jupyter-operator mcp config --client NAME``: the endpoint, and the token never in the text."""

from __future__ import annotations

import json

import pytest

from jupyter_operator.cli import main
from jupyter_operator.mcp_config import CLIENTS


@pytest.mark.parametrize("client", CLIENTS)
def test_the_snippet_names_the_endpoint_and_never_holds_the_token(
    client: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_TOKEN", "s3cret-token-value")
    assert main(["mcp", "config", "--client", client, "--url", "http://127.0.0.1:8888/base"]) == 0
    out, err = capsys.readouterr()
    assert "http://127.0.0.1:8888/base/jupyter-operator/mcp" in out
    assert "s3cret-token-value" not in out + err
    assert ("JUPYTER_TOKEN" in out) or client == "vscode"
    if client in ("claude-code", "cursor", "vscode"):  # pasteable JSON after the comment line
        body = json.loads(out.split("\n", 1)[1])
        servers = body.get("mcpServers") or body["servers"]
        assert servers["jupyter-operator"]["headers"]["Authorization"].startswith("token ${")


def test_an_unknown_client_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "config", "--client", "emacs"]) == 2
