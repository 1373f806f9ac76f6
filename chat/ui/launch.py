"""How the chat comes up: `scholar chat` starts `chainlit run chat/ui/app.py` as a child process (`run_chat`), and
inside that process `start` configures Chainlit before the first request.

Chainlit reads chainlit.md and public/ from its app root and writes .chainlit/ (config.toml, translations, made
with defaults when missing) and .files/ (uploads) there. The app root is the repository (CHAINLIT_APP_ROOT), where
chainlit.md and public/ are committed and .chainlit/ and .files/ are gitignored. Our UI settings are applied in
code by `start`, so the generated config.toml never needs editing or committing. Chainlit is imported only
inside `start`: importing it writes those folders into the working directory, which for `scholar chat` is the
reader's.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from chat.runtime import Runtime
from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "chat" / "ui" / "app.py"
STOP_GRACE_SECONDS = 10
ASSISTANT = "Canon Scholar"


# ---- inside the Chainlit process ----------------------------------------------------------------------------
def start(settings: ScholarSettings, runtime: Runtime | None = None) -> Runtime:
    """Configure Chainlit for this process and return the runtime the handlers answer with: UI choices, chat
    history, login, the stored-element route and the JSON API at /api, both ahead of Chainlit's catch-all UI route.
    Calling it again (Chainlit reloading the app) replaces what the previous call set up."""
    import chainlit as cl
    from chainlit.config import config as cl_config
    from chainlit.server import app as server_app

    from chat.api.routes import mount_api
    from chat.ui.auth import LOCAL_READER, ensure_auth_secret, parse_users
    from chat.ui.history import HistoryStore, build_data_layer, mount_file_route
    from chat.ui.logins import LoginGuard, api_login, logout_handler
    from chat.ui.logins import install as install_login_guard
    from chat.ui.reader import mount_read_route

    # A failed LLM build is retried on the next question: starting Ollama must not need a chat restart.
    runtime = runtime or Runtime(settings, llm_retry_after_s=0)

    # UI choices live in code, not in .chainlit/config.toml (generated with defaults at start and gitignored).
    cl_config.ui.name = ASSISTANT
    cl_config.ui.description = "A cited assistant for the Pali canon (SuttaCentral, English and Pali)."
    cl_config.ui.cot = "tool_call"
    cl_config.ui.custom_css = "/public/scholar.css"
    cl_config.ui.custom_js = "/public/scholar.js"  # the panel on phones, reading on inside the panel
    cl_config.features.unsafe_allow_html = False
    cl_config.features.latex = False
    cl_config.features.edit_message = False  # an edited question would fork the chat's memory
    cl_config.features.spontaneous_file_upload.enabled = False

    store = HistoryStore.from_settings(settings)
    layer, storage = build_data_layer(store)
    cl.data_layer(lambda: layer)
    secret = ensure_auth_secret(settings.resolved_chat_db.parent / "auth-secret",
                                store.db if settings.database_url else None)
    users = parse_users(settings.chat_users)
    # Tokens count only while their user, password and login are current; logout revokes; guesses are throttled.
    guard = LoginGuard(users, LOCAL_READER, secret, store)
    install_login_guard(guard)
    cl.on_logout(logout_handler(guard))
    if users:
        async def password_login(username: str, password: str) -> cl.User | None:
            if guard.password_login(username, password):
                return cl.User(identifier=username, metadata=guard.stamp({"provider": "credentials"}, username))
            return None

        cl.password_auth_callback(password_login)
        cl_config.code.header_auth_callback = None
    else:
        store.ensure_user(LOCAL_READER)

        async def local_reader(headers) -> cl.User | None:
            return cl.User(identifier=LOCAL_READER, metadata=guard.stamp({"provider": "local"}, LOCAL_READER))

        cl.header_auth_callback(local_reader)
        cl_config.code.password_auth_callback = None

    mount_file_route(server_app, storage, store)
    mount_read_route(server_app, runtime)
    # With a password login, the API in this process answers only those the login admits (or API key holders):
    # otherwise anyone turned away by the login page could still ask, search and read /api/health here.
    mount_api(server_app, runtime, login=api_login(settings.chat_allowed_origins) if users else None)
    restrict_origins(server_app, settings.chat_allowed_origins)
    bound_slow_clients(settings.api_read_timeout)
    return runtime


def bound_slow_clients(seconds: float) -> None:
    """`scholar serve`'s read timeout for the chat's server, and so for the API mounted in it: a request must arrive
    whole within `seconds` (chat.api.slow_clients). Chainlit's launcher builds the server's uvicorn.Config after
    loading the app, that is after this runs; it is given a `uvicorn` whose Config carries the timeout."""
    import chainlit.cli

    from chat.api.slow_clients import ReadTimeoutUvicorn

    chainlit.cli.uvicorn = ReadTimeoutUvicorn(seconds)  # type: ignore[assignment]


def restrict_origins(server_app, extra: list[str]) -> None:
    """Only the chat's own page (and `extra` origins) may use the login cookie. Chainlit's generated config.toml
    allows every origin, with credentials: any page on the same host (another port is the same site, so the
    SameSite=Lax cookie goes along) could read a reader's threads over HTTP or open their websocket."""
    from chainlit.server import sio
    from starlette.middleware.cors import CORSMiddleware

    allowed = [o.rstrip("/") for o in extra if o.strip() and o.strip() != "*"]
    for middleware in server_app.user_middleware:
        if middleware.cls is CORSMiddleware:
            middleware.kwargs["allow_origins"] = allowed  # none: no CORS headers, the browser keeps it same-origin
    server_app.middleware_stack = None  # rebuilt with these options on the next request

    def origin_allowed(origin: str, environ: dict) -> bool:
        own = f"{environ.get('wsgi.url_scheme', 'http')}://{environ.get('HTTP_HOST', '')}"
        return origin == own or origin in allowed

    # Websockets are not subject to CORS at all: the Socket.IO server checks the Origin header itself.
    sio.eio.cors_allowed_origins = origin_allowed


# ---- `scholar chat` -----------------------------------------------------------------------------------------
def chainlit_command(host: str, port: int, headless: bool) -> list[str]:
    cmd = [sys.executable, "-m", "chainlit", "run", str(APP), "--host", host, "--port", str(port)]
    if headless:
        cmd.append("--headless")
    return cmd


def chainlit_env(base: dict[str, str] | None = None, trusted_proxies: list[str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["CHAINLIT_APP_ROOT"] = str(REPO)
    # Chainlit's uvicorn believes X-Forwarded-For from loopback unless told otherwise: only configured proxies.
    env["FORWARDED_ALLOW_IPS"] = ",".join(trusted_proxies or [])
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("ANONYMIZED_TELEMETRY", "False")
    # The repo on sys.path so `chat`, `tools`, `indexing` import even without the editable install.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def run_chat(args, settings: ScholarSettings) -> int:
    from chat import first_run
    from chat.ui.auth import parse_users

    parse_users(settings.chat_users)  # a malformed login list stops here, with its reason, before any server starts
    cmd = chainlit_command(args.host, args.port, args.headless)
    embedder = first_run.lexical_then_background(settings) if getattr(args, "ingest", False) else None
    log.info("starting the chat on http://%s:%d (index %s)", args.host, args.port, settings.index_dir)
    if not (settings.index_dir / "docstore.sqlite").exists():
        log.warning("no index at %s yet: the chat will start, but run `scholar ingest` before asking",
                    settings.index_dir)
    try:
        child = subprocess.Popen(cmd, cwd=REPO, env=chainlit_env(trusted_proxies=settings.trusted_proxies))
    except BaseException:
        first_run.stop(embedder)
        raise
    first_run.announce_when_serving(args.host, args.port, ASSISTANT, alive=lambda: child.poll() is None)

    def kill_if_running() -> None:
        if child.poll() is None:
            child.kill()

    def stop(signum, _frame) -> None:  # `kill <scholar chat>` must not leave the server running
        child.send_signal(signum)
        # uvicorn waits for worker threads, and a local LLM mid-generation can take minutes: don't wait for it
        threading.Timer(STOP_GRACE_SECONDS, kill_if_running).start()

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
        first_run.stop(embedder)
