"""``OperatorExtension``: a quick load (services built on first use); bad config fails start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

#: What a server start must not load: the first request does.
HEAVY = ["pydantic", "jupyter_operator.protocol", "jupyter_operator.engine", "mcp", "mcp_types"]

_LOAD = textwrap.dedent(
    """
    import json, sys
    from jupyter_server.serverapp import ServerApp
    from traitlets.config import Config
    app = ServerApp(root_dir=sys.argv[1], jpserver_extensions={"jupyter_operator": True},
                    reraise_server_extension_failures=True, config=Config(json.loads(sys.argv[3])))
    app.initialize(argv=[], find_extensions=False, new_httpserver=False)
    extension = app.extension_manager.extension_points["jupyter_operator"].app
    print(json.dumps({
        "loaded": [name for name in json.loads(sys.argv[2]) if name in sys.modules],
        "built": extension._services is not None,
    }))
    """
)


def _load(tmp_path: Path, config: dict[str, Any] | None = None) -> subprocess.CompletedProcess[str]:
    """Start-up without serving, in a fresh process (sys.modules of this one is not clean)."""
    env = dict(os.environ)
    for key in ("JUPYTER_CONFIG_DIR", "JUPYTER_CONFIG_PATH", "JUPYTER_DATA_DIR"):
        env[key] = str(tmp_path / key.lower())
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    env["JUPYTER_OPERATOR_JOURNAL_DIR"] = str(tmp_path / "journal")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    return subprocess.run(
        [sys.executable, "-c", _LOAD, str(tmp_path), json.dumps(HEAVY), json.dumps(config or {})],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_loading_the_extension_builds_nothing_heavy(tmp_path: Path) -> None:
    done = _load(tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    state = json.loads(done.stdout.strip().splitlines()[-1])
    assert state == {"loaded": [], "built": False}


def test_a_bad_policy_still_fails_the_start(tmp_path: Path) -> None:
    done = _load(tmp_path, {"OperatorExtension": {"policy": "auto=nonsense"}})
    assert done.returncode != 0
    assert "OperatorExtension:" in done.stderr


async def test_the_first_request_builds_the_services(jp_serverapp: Any, api: Any) -> None:
    extension = jp_serverapp.extension_manager.extension_points["jupyter_operator"].app
    assert extension._services is None
    status, body = await api("workspaces")
    assert status == 200, body
    assert extension._services is not None
    assert extension.sessions is extension.services.sessions


@pytest.mark.parametrize("operator_config", [{"shell_rules": "allow=ls"}])
async def test_configured_shell_rules_reach_the_services(jp_serverapp: Any, api: Any) -> None:
    extension = jp_serverapp.extension_manager.extension_points["jupyter_operator"].app
    operator = extension.registry.new_operator("default")
    assert operator.shell_policy is extension._shell_policy
    operator.close()
