"""Serving before the index is whole: `scholar chat --ingest` and `scholar serve --ingest` (what `make run` runs).

The lexical phase of the ingest runs here, in the foreground: seconds for an index that is up to date, about a
minute for the whole library from nothing. Then the server starts, and the semantic phase runs behind it in a
child process (`scholar ingest --wait`, reniced), which the server's processes follow through the progress record
(tools/library.py re-reads new vectors). A child process rather than a thread of the server: the embedding keeps
its CPU time out of the server's interpreter (one GIL, one event loop answering readers), it holds the ingest lock
on its own, it can be niced below the reader's questions, and stopping or killing it at any point loses at most
one batch (the next run resumes). It stops with the server.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[1]
LOG_NAME = "ingest.log"
STOP_SECONDS = 10


def lexical_then_background(settings: ScholarSettings) -> subprocess.Popen | None:
    """Bring the lexical side of the index up to date now, then start the semantic phase in a child process.
    Returns the child (None when another ingest already holds the index: it will finish the work)."""
    from indexing.lock import IngestRunningError
    from indexing.pipeline import ingest

    has_index = (settings.index_dir / "docstore.sqlite").exists()
    try:
        started = time.perf_counter()
        # with no index at all there is nothing to serve: wait for another run instead of starting empty
        report = ingest(settings, progress=False, semantic=False, wait=not has_index)
        log.info("lexical index ready in %.1fs (%d files, %d chunks written)", time.perf_counter() - started,
                 report.files_seen, report.chunks_written)
    except IngestRunningError as exc:
        log.warning("%s; serving the index as it stands meanwhile", exc)
        return None
    log_path = settings.index_dir / LOG_NAME
    with log_path.open("ab") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "chat.cli", "ingest", "--wait", "--no-progress"],
            cwd=os.getcwd(), env=_child_env(), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=_renice(settings.background_ingest_nice),
        )
    log.info("the semantic index is being built in the background (process %d, log %s)", child.pid, log_path)
    return child


def stop(child: subprocess.Popen | None) -> None:
    """Stop the background ingest (it resumes on the next run from the last stored batch)."""
    if child is None or child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def announce_when_serving(host: str, port: int, what: str, alive=lambda: True) -> threading.Thread:
    """Print `what` and the URL once the server accepts connections (not when it is merely starting)."""
    def wait() -> None:
        address = "127.0.0.1" if host in ("0.0.0.0", "") else "::1" if host == "::" else host
        while alive():
            try:
                with socket.create_connection((address, port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            return
        shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::", "") else host
        sys.stdout.write(f"{what} is ready: http://{shown}:{port}\n")
        sys.stdout.flush()

    thread = threading.Thread(target=wait, name="announce-url", daemon=True)
    thread.start()
    return thread


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # the repository's packages, as the parent has them, even without the editable install
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def _renice(niceness: int):
    def apply() -> None:  # runs in the child before exec
        if niceness:
            os.nice(niceness)
    return apply
