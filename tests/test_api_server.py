"""`scholar serve`'s real uvicorn server on loopback: what only a real server shows (proxy headers, timeouts,
a client that leaves mid-stream)."""

from __future__ import annotations

import contextlib
import time

import httpx
import pytest

from chat.api.routes import create_app, server_config
from chat.providers.ollama import build_ollama_llm
from chat.runtime import Runtime
from tools.library import Library

from fake_ollama import FakeOllama
from helpers_tools import open_library
from local_server import cut_off_within, free_port, serving_in_thread


@pytest.fixture
def library(tmp_path_factory):
    yield open_library(tmp_path_factory.getbasetemp() / "agent-index")
    Library.forget()


@contextlib.contextmanager
def serving(settings, library, **runtime):
    import uvicorn

    port = free_port()
    config = server_config(create_app(Runtime(settings, library=library, **runtime)), "127.0.0.1", port, settings)
    config.log_level = "warning"
    with serving_in_thread(uvicorn.Server(config)):
        yield f"http://127.0.0.1:{port}"


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


@pytest.mark.parametrize("partial", [
    b"POST /api/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty",  # headers never finished
    b"POST /api/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    b'{"query": "bur',  # a body that stops coming
])
def test_a_client_that_sends_its_request_slowly_is_cut_off(library, partial):
    settings = library.settings.model_copy(update={"api_read_timeout": 1.0})
    with serving(settings, library) as url:
        # closed at the read timeout, not held for the socket's 10 s
        assert cut_off_within(int(url.rsplit(":", 1)[1]), partial) < 5
        # the server still serves well-behaved clients
        assert httpx.post(f"{url}/api/search", json={"query": "burning", "k": 1, "mode": "bm25"},
                          timeout=10).status_code == 200


MODEL = "qwen2.5:7b-instruct"
LONG_ANSWER = "Thought: The passages answer this.\nAnswer: " + "The senses are burning [1]. " * 100


def test_a_client_leaving_the_stream_stops_the_model(library):
    """Closing the SSE stream closes the streaming request to Ollama, the only way to make Ollama stop."""
    settings = library.settings.model_copy(update={"ollama_model": MODEL, "llm_context_window": 4096})
    with FakeOllama([MODEL], reply=lambda messages: LONG_ANSWER) as fake:
        fake.token_delay = 0.03  # the whole reply would take ~12 s
        llm = build_ollama_llm(settings.model_copy(update={"ollama_host": fake.url}))
        with serving(settings, library, llm_factory=lambda s: llm) as url:
            with httpx.stream("POST", f"{url}/api/query", json={"query": "Why are the senses burning?"},
                              headers={"Accept": "text/event-stream"}, timeout=20) as response:
                lines = response.iter_lines()
                assert next(lines).startswith(("event:", ":"))
                # steps and evidence arrive before the model is asked; then the step of writing the answer starts,
                # and nothing more comes until the answer is checked
                assert any("write_answer" in line for line in lines)
                deadline = time.monotonic() + 15
                while not fake.streams and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert fake.streams, "the model was never asked"
                assert fake.streams[0].started.wait(10)
                left = time.monotonic()
            stream = fake.streams[0]
            assert stream.ended.wait(5), "Ollama was left streaming for nobody"
            assert stream.closed_at is not None and stream.closed_at - left < 3
            assert stream.sent < stream.total / 2


def test_the_read_timeout_leaves_a_websocket_open():
    """The chat's server has the read timeout too, and its Socket.IO connections are websockets: once a connection
    is upgraded its request has arrived, and the timer must not close it."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from websockets.sync.client import connect

    from chat.api.slow_clients import protocol_with_timeout

    async def echo(ws):
        await ws.accept()
        while True:
            await ws.send_text(await ws.receive_text())

    port = free_port()
    config = uvicorn.Config(Starlette(routes=[WebSocketRoute("/ws", echo)]), host="127.0.0.1", port=port,
                            log_level="warning", ws="auto", http=protocol_with_timeout(0.3), lifespan="off")
    with serving_in_thread(uvicorn.Server(config)), connect(f"ws://127.0.0.1:{port}/ws", open_timeout=5) as ws:
        time.sleep(1.0)  # three read timeouts
        ws.send("still here")
        assert ws.recv(timeout=5) == "still here"
