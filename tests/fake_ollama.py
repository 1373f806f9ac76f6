"""A fake Ollama server on 127.0.0.1 for the provider tests: the real HTTP seam, shaped like Ollama's API.

/api/tags lists `models`; /api/chat answers streaming (NDJSON, one word per line, then a `done` line) or not;
an unknown model gets Ollama's 404 `{"error": "model ... not found"}`. `fail_next` makes the next N chat calls
answer 503, `reset_next` makes them reset the connection (TCP RST) after reading the request, `hang` makes every
request wait (accepting the connection, never answering) until shutdown. `token_delay` paces a streamed reply
(seconds between lines), and `streams` records each streamed reply: how many of its lines were sent and whether,
and when, the client closed the connection before the end (what makes a real Ollama stop generating).
"""

from __future__ import annotations

import json
import re
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class StreamRecord:
    total: int  # lines the reply has, the `done` line included
    sent: int = 0
    closed_at: float | None = None  # monotonic time the write failed: the client had closed the connection
    started: threading.Event = field(default_factory=threading.Event)  # set once the first line is out
    ended: threading.Event = field(default_factory=threading.Event)  # set when the stream stops, either way


class FakeOllama:
    def __init__(self, models: list[str] | None = None, reply: Callable[[list[dict]], str] | None = None):
        self.models = list(models or [])
        self.reply = reply or (lambda messages: f"Echo: {messages[-1]['content']}")
        self.fail_next = 0
        self.reset_next = 0
        self.hang = False
        self.token_delay = 0.001
        self.streams: list[StreamRecord] = []
        self.garbage = False  # answer /api/chat with text that is not JSON, as a wrong server on the port would
        self.requests: list[tuple[str, str, dict]] = []  # (method, path, json body)
        self._release = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def chat_requests(self) -> list[dict]:
        return [body for _, path, body in self.requests if path == "/api/chat"]

    def __enter__(self) -> FakeOllama:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep pytest output clean
                pass

            def _json(self, status: int, payload: dict) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _body(self) -> dict:
                length = int(self.headers.get("Content-Length") or 0)
                return json.loads(self.rfile.read(length) or b"{}") if length else {}

            def _route(self, method: str) -> None:
                body = self._body() if method == "POST" else {}
                fake.requests.append((method, self.path, body))
                if fake.hang:
                    fake._release.wait(30)
                    return
                if self.path == "/api/tags":
                    return self._json(200, {"models": [
                        {"name": m, "model": m, "modified_at": "2025-01-01T00:00:00Z", "size": 1, "digest": "0",
                         "details": {"family": "qwen2"}} for m in fake.models]})
                if self.path == "/api/show":
                    return self._json(200, {"modelinfo": {"qwen2.context_length": 32768}})
                if self.path != "/api/chat":
                    return self._json(404, {"error": "not found"})
                model = body.get("model", "")
                if model not in fake.models:
                    return self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
                if fake.reset_next > 0:
                    fake.reset_next -= 1
                    # SO_LINGER 0: close() sends RST, what a crashing or restarting server looks like
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                if fake.garbage:
                    body = b"<html>not ollama</html>\n"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if fake.fail_next > 0:
                    fake.fail_next -= 1
                    return self._json(503, {"error": "server busy, please try again"})
                text = fake.reply(body.get("messages", []))
                if body.get("stream", True):
                    return self._stream(model, text)
                return self._json(200, {
                    "model": model, "created_at": "2025-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": text},
                    "done": True, "done_reason": "stop", "prompt_eval_count": 7, "eval_count": 3,
                })

            def _stream(self, model: str, text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                pieces = re.findall(r"\S+\s*", text)
                lines = [{"model": model, "created_at": "2025-01-01T00:00:00Z",
                          "message": {"role": "assistant", "content": p}, "done": False} for p in pieces]
                lines.append({"model": model, "created_at": "2025-01-01T00:00:00Z",
                              "message": {"role": "assistant", "content": ""}, "done": True,
                              "done_reason": "stop", "prompt_eval_count": 7, "eval_count": len(pieces)})
                record = StreamRecord(total=len(lines))
                fake.streams.append(record)
                try:
                    for line in lines:
                        data = (json.dumps(line) + "\n").encode()
                        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                        record.sent += 1
                        record.started.set()
                        time.sleep(fake.token_delay)
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:  # broken pipe or reset: the client closed the stream, as Ollama would notice
                    record.closed_at = time.monotonic()
                    self.close_connection = True
                finally:
                    record.ended.set()

            def do_GET(self):
                self._route("GET")

            def do_POST(self):
                self._route("POST")

            def do_HEAD(self):
                self._json(200, {})

        return Handler
