"""`scholar chat`: start `chainlit run chat/app.py` as a child process.

Chainlit reads chainlit.md and public/ from its app root and writes .chainlit/ (config.toml, translations, made
with defaults when missing) and .files/ (uploads) there. The app root is the repository (CHAINLIT_APP_ROOT), where
chainlit.md and public/ are committed and .chainlit/ and .files/ are gitignored. Our UI settings are applied in
code by chat/app.py, so the generated config.toml never needs editing or committing.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "chat" / "app.py"
STOP_GRACE_SECONDS = 10


def chainlit_command(host: str, port: int, headless: bool) -> list[str]:
    cmd = [sys.executable, "-m", "chainlit", "run", str(APP), "--host", host, "--port", str(port)]
    if headless:
        cmd.append("--headless")
    return cmd


def chainlit_env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["CHAINLIT_APP_ROOT"] = str(REPO)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("ANONYMIZED_TELEMETRY", "False")
    # The repo on sys.path so `chat`, `tools`, `indexing` import even without the editable install.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def run_chat(args, settings: ScholarSettings) -> int:
    cmd = chainlit_command(args.host, args.port, args.headless)
    log.info("starting the chat on http://%s:%d (index %s)", args.host, args.port, settings.index_dir)
    if not (settings.index_dir / "docstore.sqlite").exists():
        log.warning("no index at %s yet: the chat will start, but run `scholar ingest` before asking",
                    settings.index_dir)
    child = subprocess.Popen(cmd, cwd=REPO, env=chainlit_env())

    def stop(signum, _frame) -> None:  # `kill <scholar chat>` must not leave the server running
        child.send_signal(signum)
        # uvicorn waits for worker threads, and a local LLM mid-generation can take minutes: don't wait for it
        threading.Timer(STOP_GRACE_SECONDS, lambda: child.poll() is None and child.kill()).start()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        return child.wait()
    except KeyboardInterrupt:  # the terminal already sent SIGINT to the child too
        try:
            return child.wait(timeout=10) or 130
        except subprocess.TimeoutExpired:
            child.kill()
            return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        if child.poll() is None:
            child.terminate()
