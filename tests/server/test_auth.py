"""Security inherited from jupyter-server: every route refuses strangers, no handler lacks its
decorators, a cross-origin WebSocket with a login cookie is refused, XSRF applies to cookies."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jupyter_server.base.handlers import JupyterHandler
from server_helpers import API, FILES, write_cmd
from tornado import web
from tornado.httpclient import HTTPClientError
from tornado.websocket import WebSocketHandler

from jupyter_operator.server.app import OperatorExtension

REPO = Path(__file__).resolve().parents[2]

GET_ROUTES = [("workspaces",), ("spec",), ("history",), ("sessions",), ("sessions", "abc"),
              ("sessions", "abc", "items", "w1", "content")]  # fmt: skip
POST_ROUTES = [
    ("scan",),
    ("undo",),
    ("redo",),
    ("sessions", "abc", "decide"),
    ("sessions", "abc", "decide-all"),
    ("sessions", "abc", "items", "r1", "execution"),
]


@pytest.fixture(params=[False, True], ids=["auth-required", "auth-default"])
def jp_server_config(request: pytest.FixtureRequest, journal_dir: Path) -> dict[str, Any]:
    """Both server settings: our decorators must refuse strangers even when the server would not."""
    return {
        "ServerApp": {
            "jpserver_extensions": {"jupyter_operator": True},
            "allow_unauthenticated_access": request.param,
        },
        "OperatorExtension": {"journal_dir": str(journal_dir)},
    }


# -- every route, no credentials -----------------------------------------------------------


@pytest.mark.parametrize("parts", GET_ROUTES)
async def test_get_without_token_is_403(jp_fetch: Any, root: Path, parts: tuple[str, ...]) -> None:
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch(*API, *parts, headers={"Authorization": ""})
    assert info.value.code == 403
    assert json.loads(info.value.response.body)["error"]["code"] == "forbidden"


@pytest.mark.parametrize("parts", POST_ROUTES)
async def test_post_without_token_is_403(jp_fetch: Any, root: Path, parts: tuple[str, ...]) -> None:
    body = json.dumps({"text": write_cmd("w", "a.txt", "x\n"), "id": "w", "decision": "approve"})
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch(*API, *parts, method="POST", body=body, headers={"Authorization": ""})
    assert info.value.code == 403
    assert not (root / "a.txt").exists()


async def test_websocket_without_token_is_403(jp_ws_fetch: Any, root: Path) -> None:
    with pytest.raises(HTTPClientError) as info:
        await jp_ws_fetch(*FILES, headers={"Authorization": ""})
    assert info.value.code == 403


async def test_wrong_token_is_403(jp_fetch: Any, jp_ws_fetch: Any, root: Path) -> None:
    bad = {"Authorization": "token not-the-token"}
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch(*API, "workspaces", headers=bad)
    assert info.value.code == 403
    with pytest.raises(HTTPClientError) as info:
        await jp_ws_fetch(*FILES, headers=bad)
    assert info.value.code == 403


async def test_positive_control_with_token(jp_fetch: Any, jp_ws_fetch: Any, root: Path) -> None:
    response = await jp_fetch(*API, "workspaces")
    assert response.code == 200
    connection = await jp_ws_fetch(*FILES)
    await connection.write_message(json.dumps({"type": "file_list"}))
    assert json.loads(await connection.read_message())["type"] == "file_list_result"
    connection.close()


# -- login cookie: origin and XSRF ----------------------------------------------------------


async def _login_cookie(jp_fetch: Any, port: int) -> str:
    """Log in with the token and keep only the cookie (as a browser would)."""
    response = await jp_fetch(*API, "workspaces", headers={"Host": f"localhost:{port}"})
    cookies = [c.split(";", 1)[0] for c in response.headers.get_list("Set-Cookie")]
    login = [c for c in cookies if c.startswith("username-localhost")]
    assert login, cookies
    return login[0]


async def test_cross_origin_websocket_with_cookie_is_refused(
    jp_fetch: Any, jp_ws_fetch: Any, jp_http_port: int, root: Path
) -> None:
    cookie = await _login_cookie(jp_fetch, jp_http_port)
    headers = {"Authorization": "", "Cookie": cookie, "Origin": "http://evil.example"}
    with pytest.raises(HTTPClientError) as info:
        await jp_ws_fetch(*FILES, headers=headers)
    assert info.value.code == 403
    # Controls: the same cookie from the server's own origin connects, so the 403 above was
    # the origin check and not a failed login.
    same = {"Authorization": "", "Cookie": cookie, "Origin": f"http://localhost:{jp_http_port}"}
    connection = await jp_ws_fetch(*FILES, headers=same)
    await connection.write_message(json.dumps({"type": "file_list"}))
    assert json.loads(await connection.read_message())["type"] == "file_list_result"
    connection.close()


async def test_cookie_post_needs_xsrf(jp_fetch: Any, jp_http_port: int, root: Path) -> None:
    cookie = await _login_cookie(jp_fetch, jp_http_port)
    body = json.dumps({"text": write_cmd("w", "a.txt", "x\n")})
    host = f"localhost:{jp_http_port}"
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch(
            *API,
            "scan",
            method="POST",
            body=body,
            headers={"Authorization": "", "Cookie": cookie, "Host": host},
        )
    assert info.value.code == 403
    xsrf = {
        "Authorization": "",
        "Cookie": f"{cookie}; _xsrf=abc123",
        "Host": host,
        "X-XSRFToken": "abc123",
    }
    response = await jp_fetch(*API, "scan", method="POST", body=body, headers=xsrf)
    assert response.code == 200


# -- decorators on every registered handler ---------------------------------------------------


def _decorator_chain(method: Callable[..., Any]) -> list[str]:
    """``module:function`` of each wrapper around a handler method, outermost first."""
    chain = []
    while hasattr(method, "__wrapped__"):
        code = method.__code__
        chain.append(
            f"{Path(code.co_filename).parent.name}/{Path(code.co_filename).name}:{code.co_name}"
        )
        method = method.__wrapped__
    return chain


def missing_auth(
    handler: type[web.RequestHandler], ours: tuple[str, ...] = ("jupyter_operator",)
) -> list[str]:
    """Why ``handler`` is not protected the way the project requires (empty when it is)."""
    problems = []
    for verb in handler.SUPPORTED_METHODS:
        method = getattr(handler, verb.lower())
        if method is web.RequestHandler._unimplemented_method:
            continue
        owner = next(c for c in handler.__mro__ if verb.lower() in vars(c))
        if not owner.__module__.startswith(ours):
            # Inherited from jupyter-server (the CORS preflight OPTIONS, marked public there).
            assert owner.__module__.startswith(("jupyter_server", "tornado")), owner
            continue
        chain = _decorator_chain(method)
        if issubclass(handler, WebSocketHandler):
            if not issubclass(handler, JupyterHandler):
                problems.append(
                    f"{handler.__name__} is a WebSocket not derived from JupyterHandler"
                )
            if (
                verb != "GET"
                or chain[:1] != ["auth/decorator.py:wrapper"]
                or getattr(method, "__allow_unauthenticated", True)
            ):
                problems.append(f"{handler.__name__}.{verb.lower()} lacks @ws_authenticated")
        elif chain[:2] != ["tornado/web.py:wrapper", "auth/decorator.py:inner"]:
            problems.append(f"{handler.__name__}.{verb.lower()} lacks @authenticated @authorized")
    if getattr(handler, "auth_resource", None) != "contents":
        problems.append(f"{handler.__name__} has no auth_resource 'contents'")
    return problems


def _registered(web_app: Any) -> list[type[web.RequestHandler]]:
    found = []
    for rule in web_app.default_router.rules + web_app.wildcard_router.rules:
        targets = getattr(rule.target, "rules", [rule])
        for sub in targets:
            target = sub.target
            if inspect.isclass(target) and target.__module__.startswith("jupyter_operator"):
                found.append(target)
    return found


def test_every_registered_handler_has_its_decorators(jp_serverapp: Any) -> None:
    handlers = _registered(jp_serverapp.web_app)
    declared = OperatorExtension()
    declared.initialize_handlers()
    assert {h for _, h, *_ in declared.handlers} == set(handlers)
    # 17 REST routes (rooms and a run's lease among them), the file API socket, 9 of Ask mode
    # (runs, models, threads, mentions), MCP
    assert len(handlers) == 28
    assert [p for h in handlers for p in missing_auth(h)] == []


def test_the_decorator_check_can_fail() -> None:
    class Bare(JupyterHandler):
        auth_resource = "contents"

        async def get(self) -> None: ...

    class HalfWs(WebSocketHandler):
        auth_resource = "contents"

        async def get(self) -> None: ...

    class OnlyAuthenticated(JupyterHandler):
        auth_resource = "contents"

        @web.authenticated
        async def post(self) -> None: ...

    assert missing_auth(Bare, ours=(__name__,)) == ["Bare.get lacks @authenticated @authorized"]
    assert len(missing_auth(HalfWs, ours=(__name__,))) == 2
    assert missing_auth(OnlyAuthenticated, ours=(__name__,)) == [
        "OnlyAuthenticated.post lacks @authenticated @authorized"
    ]


def test_server_reports_no_unauthenticated_endpoint(tmp_path: Path) -> None:
    """The extension template's check: load the extension with auth required, watch warnings."""
    script = textwrap.dedent(
        """
        import sys, warnings
        from jupyter_server.serverapp import ServerApp
        from jupyter_server.utils import JupyterServerAuthWarning
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            app = ServerApp(allow_unauthenticated_access=False, root_dir=sys.argv[1],
                            jpserver_extensions={"jupyter_operator": True},
                            reraise_server_extension_failures=True)
            app.initialize(argv=[], find_extensions=False, new_httpserver=False)
        bad = [str(w.message) for w in caught
               if issubclass(w.category, JupyterServerAuthWarning)
               and "jupyter-operator" in str(w.message)]
        loaded = "jupyter_operator" in app.extension_manager.extensions
        print("LOADED" if loaded else "NOT LOADED")
        print("\\n".join(bad) or "CLEAN")
        """
    )
    env = _isolated_env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["LOADED", "CLEAN"], done.stdout + done.stderr[-2000:]


def test_config_file_enables_the_extension(tmp_path: Path) -> None:
    """``jupyter server extension list`` reads our config file: enabled, and validates OK."""
    env = _isolated_env(tmp_path)
    conf_d = Path(env["JUPYTER_CONFIG_DIR"]) / "jupyter_server_config.d"
    conf_d.mkdir(parents=True)
    source = REPO / "jupyter-config" / "server-config" / "jupyter_operator.json"
    (conf_d / source.name).write_text(source.read_text())
    jupyter = str(Path(sys.executable).with_name("jupyter"))
    done = subprocess.run(
        [jupyter, "server", "extension", "list"],
        env={**env, "NO_COLOR": "1"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    assert done.returncode == 0, out[-2000:]
    # Only the section of our temporary config dir counts (the environment may enable it too).
    section = out.split(f"Config dir: {conf_d.parent}", 1)[1].split("Config dir:", 1)[0]
    assert "jupyter_operator enabled" in section, out[-2000:]
    assert re.search(r"jupyter_operator \S+ OK", section), out[-2000:]


def _isolated_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    for key in (
        "JUPYTER_CONFIG_DIR",
        "JUPYTER_CONFIG_PATH",
        "JUPYTER_DATA_DIR",
        "JUPYTER_RUNTIME_DIR",
    ):
        env[key] = str(tmp_path / key.lower())
    env["JUPYTER_OPERATOR_JOURNAL_DIR"] = str(tmp_path / "journal")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    return env


async def test_foreign_host_header_is_refused(jp_fetch: Any, jp_http_port: int, root: Path) -> None:
    """DNS rebinding: jupyter-server's host check applies to our routes too."""
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch(*API, "workspaces", headers={"Host": f"evil.example:{jp_http_port}"})
    assert info.value.code == 403
    response = await jp_fetch(*API, "workspaces", headers={"Host": f"localhost:{jp_http_port}"})
    assert response.code == 200


async def test_json_answers_are_not_sniffable(jp_fetch: Any, root: Path) -> None:
    """Cross-site script inclusion: JSON objects, JSON content type, nosniff, strict CSP."""
    response = await jp_fetch(*API, "history")
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'none'" in response.headers["Content-Security-Policy"]
    assert response.body.startswith(b"{")
