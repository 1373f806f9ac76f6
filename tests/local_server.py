"""A real server process on loopback for a test: started, waited for until its health URL answers, stopped."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(cmd: list[str], health_url: str, log_path: Path, *, timeout: float, stop_timeout: float = 20,
            **popen) -> Iterator[subprocess.Popen]:
    """Yields once `health_url` answers 200; raises AssertionError with the log's tail if the process exits or
    `timeout` passes first. Output goes to `log_path`, which is kept for the test's artifacts."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, **popen)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    if httpx.get(health_url, timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"{cmd[0]} did not start:\n{log_path.read_text()[-3000:]}")
                time.sleep(0.3)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextlib.contextmanager
def serving_in_thread(server) -> Iterator[None]:
    """Runs a `uvicorn.Server` in a daemon thread of this process until the block ends."""
    import threading

    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(10)


def cut_off_within(port: int, partial: bytes) -> float:
    """Seconds until the server on `port` closes a connection that sent only `partial` of a request."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(partial)
        started = time.monotonic()
        try:
            while sock.recv(4096):  # until the server closes the connection
                pass
        except (ConnectionResetError, TimeoutError):
            pass
        return time.monotonic() - started
