"""`launch.start` against Chainlit's real server app: our routes answer ahead of its catch-all UI route.

Chainlit includes its routes as one router ending in `/{full_path:path}`, which serves the UI page for every GET
path; a route appended after it, or inserted "before the catch-all" found by path in the flat route list, is never
reached. So these tests use `chainlit.server.app` itself, not a stand-in.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3

import pytest
from fastapi.testclient import TestClient

from chat.runtime import Runtime
from chat.ui.history import FILES_ROUTE, HistoryStore, build_data_layer

from helpers_tools import open_library


@pytest.fixture
def chainlit_app(monkeypatch):
    """chainlit.server.app, with its routes and our callbacks put back afterwards."""
    from chainlit.config import config as cl_config
    from chainlit.server import app, sio

    monkeypatch.setattr(app.router, "routes", list(app.router.routes))
    monkeypatch.setattr(sio.eio, "cors_allowed_origins", sio.eio.cors_allowed_origins)
    for middleware in app.user_middleware:
        monkeypatch.setattr(middleware, "kwargs", dict(middleware.kwargs))
    import chainlit.auth
    import chainlit.server

    monkeypatch.setattr(chainlit.auth, "decode_jwt", chainlit.auth.decode_jwt)
    monkeypatch.setattr(chainlit.server, "decode_jwt", chainlit.server.decode_jwt)
    for name in ("data_layer", "header_auth_callback", "password_auth_callback", "on_logout"):
        monkeypatch.setattr(cl_config.code, name, getattr(cl_config.code, name))
    monkeypatch.delenv("CHAINLIT_AUTH_SECRET", raising=False)
    import chainlit.cli

    monkeypatch.setattr(chainlit.cli, "uvicorn", chainlit.cli.uvicorn)  # start() gives it the read timeout
    return app


@pytest.fixture
def runtime(tmp_path_factory, tmp_path):
    library = open_library(tmp_path_factory.getbasetemp() / "agent-index")
    settings = library.settings.model_copy(update={"chat_db": tmp_path / "chat" / "history.sqlite",
                                                   "chat_users": "", "llm_provider": "scripted"})
    return Runtime(settings, library=library)


def test_the_api_and_stored_elements_are_served_ahead_of_the_ui(chainlit_app, runtime, monkeypatch):
    from chainlit.auth import get_current_user
    from chainlit.user import PersistedUser

    from chat.ui.launch import start

    assert start(runtime.settings, runtime) is runtime
    client = TestClient(chainlit_app)

    health = client.get("/api/health")
    assert health.status_code == 200 and health.json()["index"]["loaded"] is True
    found = client.post("/api/search", json={"query": "all is burning", "k": 3}).json()
    assert found["passages"][0]["sutta_id"] == "SN 35.28"
    assert "/query" in client.get("/api/openapi.json").json()["paths"]
    docs = client.get("/api/docs").text  # its assets under the mount too, not the UI page
    assert "/api/openapi.json" in docs
    script = client.get("/api/static-offline-docs/swagger-ui-bundle.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]

    # an element stored by the history layer is served to its owner, never the UI page in its place
    _, storage = build_data_layer(HistoryStore.from_settings(runtime.settings))
    stored = asyncio.run(storage.upload_file("owner-1/el-1/SN 35.28:1.3", "the panel", mime="text/plain"))
    assert stored["url"].startswith(FILES_ROUTE + "/owner-1/")
    with contextlib.closing(sqlite3.connect(runtime.settings.resolved_chat_db)) as conn, conn:
        conn.execute('INSERT INTO threads ("id", "userId") VALUES (?, ?)', ("thread-1", "owner-1"))
        conn.execute('INSERT INTO elements ("id", "threadId", "url", "name") VALUES (?, ?, ?, ?)',
                     ("el-1", "thread-1", stored["url"], "SN 35.28:1.3"))
    owner = PersistedUser(id="owner-1", identifier="reader", createdAt="2025-01-01")
    monkeypatch.setitem(chainlit_app.dependency_overrides, get_current_user, lambda: owner)
    response = client.get(stored["url"])
    assert response.status_code == 200 and response.text == "the panel"
    monkeypatch.setitem(chainlit_app.dependency_overrides, get_current_user, lambda: None)
    assert client.get(stored["url"]).status_code == 404

    # everything else is still Chainlit's
    page = client.get("/some/thread/page")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")


def test_starting_again_replaces_the_routes_and_sets_the_login(chainlit_app, runtime):
    import os

    from chainlit.config import config as cl_config

    from chat.ui.launch import start

    start(runtime.settings, runtime)
    assert cl_config.code.header_auth_callback is not None and cl_config.code.password_auth_callback is None
    assert os.environ["CHAINLIT_AUTH_SECRET"]
    layer = cl_config.code.data_layer()
    assert type(layer).__name__ == "HistoryDataLayer"

    with_users = runtime.settings.model_copy(update={"chat_users": "ann:pw"})
    start(with_users, runtime)
    assert cl_config.code.password_auth_callback is not None and cl_config.code.header_auth_callback is None
    paths = [getattr(r, "path", None) for r in chainlit_app.router.routes]
    assert paths.count(FILES_ROUTE + "/{owner}/{digest}") == 1
    assert sum(getattr(r, "name", None) == "scholar-api" for r in chainlit_app.router.routes) == 1


def test_only_the_chats_own_origin_may_use_its_cookie(chainlit_app, runtime):
    from chat.ui.launch import start

    start(runtime.settings.model_copy(update={"chat_allowed_origins": ["https://notes.example.org"]}), runtime)
    client = TestClient(chainlit_app, base_url="http://127.0.0.1:8000")
    evil = {"Origin": "http://127.0.0.1:9999"}
    for r in (client.get("/project/settings", headers=evil),
              client.options("/project/threads", headers={**evil, "Access-Control-Request-Method": "POST"})):
        assert "access-control-allow-origin" not in r.headers
    preflight = client.options("/project/threads", headers={"Origin": "https://notes.example.org",
                                                            "Access-Control-Request-Method": "POST"})
    assert preflight.headers.get("access-control-allow-origin") == "https://notes.example.org"

    # the websocket handshake (Engine.IO polling, as the browser starts it) refuses a foreign origin
    socket = "/ws/socket.io/?EIO=4&transport=polling"
    assert client.get(socket, headers=evil).status_code == 400
    assert client.get(socket, headers={"Origin": "http://127.0.0.1:8000"}).status_code != 400


def _login(client, name: str, password: str) -> str | None:
    r = client.post("/login", data={"username": name, "password": password})
    if r.status_code != 200:
        return None
    cookie = r.headers["set-cookie"]
    return cookie.split("access_token=", 1)[1].split(";", 1)[0]


def _me(client, token: str) -> int:
    client.cookies.clear()
    return client.get("/user", headers={"Cookie": f"access_token={token}"}).status_code


def test_old_logins_stop_working_when_the_user_changes_or_logs_out(chainlit_app, runtime):
    from chat.ui.launch import start

    def users(spec: str) -> None:
        start(runtime.settings.model_copy(update={"chat_users": spec}), runtime)

    client = TestClient(chainlit_app)
    users("ann:pw,bob:pw")
    ann, bob = _login(client, "ann", "pw"), _login(client, "bob", "pw")
    assert ann and bob and _me(client, ann) == 200 and _me(client, bob) == 200

    users("ann:new-pw,bob:pw")  # ann's password changed: her old login is void, bob's stands
    assert _me(client, ann) == 401 and _me(client, bob) == 200
    client.cookies.clear()  # nor can it be traded for a new cookie: a 401, not a 500
    assert client.post("/auth/jwt", headers={"Authorization": f"Bearer {ann}"}).status_code == 401
    ann = _login(client, "ann", "new-pw")
    assert ann and _me(client, ann) == 200

    users("ann:new-pw")  # bob removed
    assert _me(client, bob) == 401

    client.cookies.clear()
    assert client.post("/logout", headers={"Cookie": f"access_token={ann}"}).status_code == 200
    assert _me(client, ann) == 401  # revoked, not only its cookie cleared
    users("ann:new-pw")  # ... and still after a restart
    assert _me(client, ann) == 401
    assert _me(client, _login(client, "ann", "new-pw")) == 200

    users("")  # no-login mode: a named user's token does not become the local reader's
    assert _me(client, ann) == 401


def _api(client, method: str, path: str, token: str | None = None, **headers: str):
    client.cookies.clear()
    if token:
        headers["Cookie"] = f"access_token={token}"
    body = {"/api/search": {"query": "all is burning", "k": 1, "mode": "bm25"},
            "/api/query": {"query": "What does the Fire Sermon say is burning?"}}.get(path)
    return client.request(method.upper(), path, json=body, headers=headers)


ENDPOINTS = [("post", "/api/search"), ("post", "/api/sessions"), ("post", "/api/query"),
             ("get", "/api/suttas/SN%2035.28")]


def test_a_password_protected_chat_does_not_serve_its_api_to_anyone(chainlit_app, runtime):
    # The login page turned anonymous readers away while /api, mounted in the same server, answered them.
    from chat.ui.launch import start

    settings = runtime.settings.model_copy(update={"chat_users": "ann:pw", "api_search_rate": 100,
                                                   "api_query_rate": 100})
    start(settings, Runtime(settings, library=runtime.library()))
    client = TestClient(chainlit_app, base_url="http://127.0.0.1:8000")
    for method, path in ENDPOINTS:
        refused = _api(client, method, path)
        assert refused.status_code == 401, (path, refused.status_code)
        assert "log in to the chat" in refused.json()["detail"]
    health = _api(client, "get", "/api/health").json()
    assert "dir" not in health["index"] and "provider" not in health["llm"]  # status only: no paths, no hosts

    ann = _login(client, "ann", "pw")
    assert ann
    for method, path in ENDPOINTS:
        assert _api(client, method, path, ann).status_code == 200, path
        assert _api(client, method, path, Authorization=f"Bearer {ann}").status_code == 200, path
    assert _api(client, "get", "/api/health", ann).json()["index"]["dir"] == str(runtime.settings.index_dir)

    # a cookie that a foreign page's request carries along does not count; the chat's own page's does
    assert _api(client, "post", "/api/search", ann, Origin="http://127.0.0.1:9999").status_code == 401
    assert _api(client, "post", "/api/search", ann, Origin="http://127.0.0.1:8000").status_code == 200
    # nor does a forged token, or one logged out
    assert _api(client, "post", "/api/search", ann[:-4] + "AAAA").status_code == 401
    client.cookies.clear()
    assert client.post("/logout", headers={"Cookie": f"access_token={ann}"}).status_code == 200
    assert _api(client, "post", "/api/search", ann).status_code == 401


def test_api_keys_work_beside_the_chat_login(chainlit_app, runtime):
    from chat.ui.launch import start

    settings = runtime.settings.model_copy(update={"chat_users": "ann:pw", "api_keys": ["k1"],
                                                   "api_search_rate": 100})
    start(settings, Runtime(settings, library=runtime.library()))
    client = TestClient(chainlit_app)
    ann = _login(client, "ann", "pw")
    assert _api(client, "post", "/api/search", **{"X-API-Key": "k1"}).status_code == 200
    assert _api(client, "post", "/api/search", ann).status_code == 200
    assert _api(client, "post", "/api/search", ann, **{"X-API-Key": "wrong"}).status_code == 401  # a key sent must hold
    assert "X-API-Key" in _api(client, "post", "/api/search").json()["detail"]


def test_a_chat_without_login_keeps_its_api_open(chainlit_app, runtime):
    from chat.ui.launch import start

    start(runtime.settings, runtime)  # one local reader on one's own machine: no login, no keys
    client = TestClient(chainlit_app)
    assert _api(client, "post", "/api/search").status_code == 200


def test_password_guessing_is_throttled(chainlit_app, runtime):
    from chat.ui.launch import start
    from chat.ui.logins import FAILED_LOGINS_PER_MINUTE

    start(runtime.settings.model_copy(update={"chat_users": "ann:right"}), runtime)
    client = TestClient(chainlit_app)
    for i in range(FAILED_LOGINS_PER_MINUTE):
        assert _login(client, "ann", f"guess-{i}") is None
    assert _login(client, "ann", "right") is None  # over the limit: refused even when right, for a minute


def test_chainlit_builds_its_server_through_the_uvicorn_start_replaces():
    """`bound_slow_clients` relies on chainlit.cli.run_chainlit calling `uvicorn.Config` through its module global
    after loading the app: a Chainlit release that builds its server otherwise must fail here, not in production."""
    import inspect

    import chainlit.cli

    source = inspect.getsource(chainlit.cli.run_chainlit)
    assert "load_module(" in source and "uvicorn.Config(" in source
    assert source.index("load_module(") < source.index("uvicorn.Config(")


@contextlib.contextmanager
def _chainlit_server(app):
    """The chat's server as Chainlit's launcher builds it (chainlit.cli.run_chainlit's own arguments), on loopback;
    without Chainlit's lifespan, which opens a browser and ends the process (`os._exit`) at shutdown."""
    import chainlit.cli

    from local_server import free_port, serving_in_thread

    port = free_port()
    config = chainlit.cli.uvicorn.Config(app, host="127.0.0.1", port=port, ws="auto", log_level="error",
                                         ws_per_message_deflate=True, ssl_keyfile=None, ssl_certfile=None,
                                         lifespan="off")
    with serving_in_thread(chainlit.cli.uvicorn.Server(config)):
        yield port


def test_the_api_in_the_chat_cuts_off_slow_clients_and_waits_for_a_slow_model(chainlit_app, runtime, tmp_path):
    """The API mounted in the chat process keeps `scholar serve`'s read timeout: a request that does not arrive
    whole in time is cut off; a model slower than that timeout still gets to answer (the bound is the client's)."""
    import time

    import httpx

    from chat.pipeline.scholar import Scholar
    from chat.providers.scripted import ScriptedLLM
    from chat.ui.launch import start

    from local_server import cut_off_within

    class SlowLLM(ScriptedLLM):
        delay_s: float = 0.0

        async def astream_chat(self, messages, **kwargs):
            await asyncio.sleep(self.delay_s)  # thinking, without holding the server's event loop
            return await super().astream_chat(messages, **kwargs)

    settings = runtime.settings.model_copy(update={"api_read_timeout": 1.0, "memory_db": tmp_path / "memory.sqlite"})
    llm = SlowLLM(["Thought: The passages answer this.\nAnswer: The senses are burning [1].",
                   "What are the senses burning with?\nWho taught this?"], delay_s=2.0)
    library = runtime.library()
    start(settings, Runtime(settings, library=library, scholar=Scholar(settings, library, llm)))
    with _chainlit_server(chainlit_app) as port:
        for partial in (b"POST /api/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty",  # headers never finished
                        b"POST /api/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        b'Content-Length: 100\r\n\r\n{"query": "bur'):  # a body that stops coming
            assert cut_off_within(port, partial) < 5  # closed at the read timeout, not held for the socket's 10 s
        started = time.monotonic()
        response = httpx.post(f"http://127.0.0.1:{port}/api/query", json={"query": "Why are the senses burning?"},
                              timeout=30)
        assert response.status_code == 200, response.text
        answer = response.json()
        assert time.monotonic() - started > 2.0 and llm.calls >= 1
        assert answer["status"] == "answered" and "burning" in answer["answer"], answer


@pytest.mark.postgres
def test_a_login_and_its_logout_hold_on_every_replica_of_one_database(chainlit_app, runtime, postgres_url, tmp_path,
                                                                       monkeypatch):
    from chat.ui.launch import start

    def replica(name: str) -> None:  # as another process would start: its own files, no secret in its environment
        monkeypatch.delenv("CHAINLIT_AUTH_SECRET", raising=False)
        start(runtime.settings.model_copy(update={"chat_users": "ann:pw", "database_url": postgres_url,
                                                  "chat_db": tmp_path / name / "history.sqlite"}), runtime)

    client = TestClient(chainlit_app)
    replica("a")
    ann = _login(client, "ann", "pw")
    assert ann and _me(client, ann) == 200
    replica("b")
    assert _me(client, ann) == 200  # signed on A, accepted on B: the secret is the database's
    client.cookies.clear()
    assert client.post("/logout", headers={"Cookie": f"access_token={ann}"}).status_code == 200
    replica("a")
    assert _me(client, ann) == 401  # logged out on B, refused on A
    assert not (tmp_path / "a" / "history.sqlite").exists() and not (tmp_path / "a" / "auth-secret").exists()
