"""`scholar serve`'s real uvicorn server on loopback: what only a real server shows (proxy headers, timeouts)."""

from __future__ import annotations

import contextlib
import threading
import time

import httpx
import pytest

from chat.api.routes import create_app, server_config
from chat.runtime import Runtime
from tools.library import Library

from helpers_tools import open_library
from local_server import free_port


@pytest.fixture
def library(tmp_path_factory):
    yield open_library(tmp_path_factory.getbasetemp() / "agent-index")
    Library.forget()


@contextlib.contextmanager
def serving(settings, library):
    import uvicorn

    port = free_port()
    config = server_config(create_app(Runtime(settings, library=library)), "127.0.0.1", port, settings)
    config.log_level = "warning"
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def test_x_forwarded_for_does_not_buy_a_fresh_rate_limit(library):
    settings = library.settings.model_copy(update={"api_search_rate": 3})
    with serving(settings, library) as url:
        codes = [httpx.post(f"{url}/api/search", json={"query": "burning", "k": 1, "mode": "bm25"},
                            headers={"X-Forwarded-For": f"203.0.113.{i}"}, timeout=10).status_code
                 for i in range(6)]
    assert codes == [200, 200, 200, 429, 429, 429]


def test_a_configured_proxy_is_believed(library):
    settings = library.settings.model_copy(update={"api_search_rate": 1, "trusted_proxies": ["127.0.0.1"]})
    with serving(settings, library) as url:
        codes = [httpx.post(f"{url}/api/search", json={"query": "burning", "k": 1, "mode": "bm25"},
                            headers={"X-Forwarded-For": f"203.0.113.{i}"}, timeout=10).status_code
                 for i in (1, 1, 2)]
    assert codes == [200, 429, 200]  # one limit per client the proxy names
