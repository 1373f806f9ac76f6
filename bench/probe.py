"""Security probe against running servers: conversation isolation, rate limits, malformed input, CORS, the chat's
login over its API; and of the command line: bad settings, concurrent ingests, a web page named .pdf.

    python bench/probe.py                      # starts its own servers on loopback (scripted LLM), probes, stops
    python bench/probe.py --api URL [--keys A,B] [--open-api URL] [--chat URL] [--login-chat URL --user NAME:PW]
                                               # probes servers already running (the command-line checks still run)

Started here: `scholar serve` twice (with the API keys `probe-a,probe-b`, and without keys) and `scholar chat`
twice (no login; a password login), all over the configured index with the scripted LLM, their memory and history
in a temporary folder. The command-line checks run `scholar` with bad settings (each must stop at once, exit 2,
one line naming the variable) and two `scholar ingest` at once on a tiny corpus in a temporary index.
Each check prints PASS or FAIL with what it saw; the exit status is the number of failures. `make probe` runs it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
STARTUP_TIMEOUT_S = 300.0
KEYS = ["probe-a", "probe-b"]
CHAT_USER = ("probe", "probe-password")
COMMAND_TIMEOUT_S = 120.0
EVIL_ORIGIN = "http://127.0.0.1:9"  # another port of the same host: the same site, a different origin

Check = Callable[[], str]
results: list[tuple[str, bool, str]] = []


def check(name: str):
    def run(fn: Check) -> Check:
        try:
            detail = fn()
            results.append((name, True, detail))
        except AssertionError as exc:
            results.append((name, False, str(exc)))
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            results.append((name, False, f"{type(exc).__name__}: {exc}"))
        return fn
    return run


# ---- the checks ---------------------------------------------------------------------------------------------


def probe_api(api: str, keys: list[str], open_api: str | None) -> None:
    a, b = ({"X-API-Key": k} for k in (keys + keys)[:2]) if keys else ({}, {})

    if len(keys) >= 2:
        @check("isolation: another key reusing a session ID does not continue it")
        def _keys() -> str:
            session = f"probe-{time.time_ns()}"
            first = httpx.post(f"{api}/api/query", json={"query": "What does the Fire Sermon say is burning?",
                                                         "session_id": session}, headers=a, timeout=120)
            assert first.status_code == 200, f"first turn: HTTP {first.status_code}"
            own = httpx.post(f"{api}/api/query", json={"query": "And what comes right after that?",
                                                       "session_id": session}, headers=a, timeout=120).json()
            other = httpx.post(f"{api}/api/query", json={"query": "And what comes right after that?",
                                                         "session_id": session}, headers=b, timeout=120).json()
            # how each follow-up was read against its conversation: "follow_up" continues an earlier turn, "first"
            # means the session held none
            own_kind = (own.get("resolution") or {}).get("kind")
            other_kind = (other.get("resolution") or {}).get("kind")
            assert own_kind == "follow_up", f"the owner's follow-up did not continue its turn ({own_kind})"
            assert other_kind == "first", f"the other key saw an earlier turn in the owner's session ({other_kind})"
            return f"owner continued ({own_kind}); the other key started afresh ({other_kind})"

    if open_api:
        @check("isolation: without keys only server-issued session IDs are accepted")
        def _issued() -> str:
            guessed = httpx.post(f"{open_api}/api/query", json={"query": "saw", "session_id": "guessable-1"},
                                 timeout=60)
            assert guessed.status_code == 422, f"a client-chosen ID answered HTTP {guessed.status_code}"
            sid = httpx.post(f"{open_api}/api/sessions", timeout=30).json()["session_id"]
            forged = httpx.post(f"{open_api}/api/query", json={"query": "saw", "session_id": sid[:-2] + "00"},
                                timeout=60)
            assert forged.status_code == 422, f"a forged ID answered HTTP {forged.status_code}"
            ok = httpx.post(f"{open_api}/api/query", json={"query": "saw", "session_id": sid}, timeout=120)
            assert ok.status_code == 200 and ok.json()["session_id"] == sid, f"issued ID: HTTP {ok.status_code}"
            return "guessed and forged IDs 422, issued ID 200"

    @check("rate limit: X-Forwarded-For does not buy a fresh quota")
    def _xff() -> str:
        codes = []
        for i in range(120):
            r = httpx.post(f"{api}/api/search", json={"query": "the simile of the saw", "k": 1, "mode": "bm25"},
                           headers={**a, "X-Forwarded-For": f"203.0.113.{i % 250}"}, timeout=30)
            codes.append(r.status_code)
            if r.status_code == 429 and i == 0:
                raise AssertionError("the first search was already limited: nothing was checked")
            if r.status_code == 429:
                assert r.headers.get("Retry-After"), "429 without Retry-After"
                return f"429 after {i} searches with rotating X-Forwarded-For"
        raise AssertionError(f"120 searches with rotating X-Forwarded-For were never limited: {sorted(set(codes))}")

    @check("malformed input: 4xx with a reason, never 500")
    def _malformed() -> str:
        bodies = {
            "lone surrogate": (b'{"query": "burning \\ud800"}', 422),
            "broken JSON": (b'{"query": "burning"', 400),
            "wrong type": (b'{"query": 5}', 422),
            "unknown field": (b'{"query": "x", "evil": 1}', 422),
            "huge body": (b'{"query": "' + b"a" * 200_000 + b'"}', 413),
        }
        seen = []
        for what, (body, want) in bodies.items():
            for path in ("/api/search", "/api/query"):
                r = httpx.post(f"{api}{path}", content=body, timeout=60,
                               headers={**b, "Content-Type": "application/json"})
                if r.status_code == 429:  # the rate-limit check above used this client's quota
                    continue
                assert r.status_code == want, f"{what} on {path}: HTTP {r.status_code} (wanted {want})"
                reason = r.json().get("detail") if r.headers.get("content-type", "").startswith("application/json") \
                    else r.text  # the 413 comes from Starlette's body limit, as plain text
                assert reason, f"{what} on {path}: no reason given"
                assert len(r.content) < 4000, f"{what} on {path}: a {len(r.content)}-byte error echoes the input"
                seen.append(r.status_code)
        assert seen, "every request was rate limited: nothing was checked"
        return f"{len(seen)} malformed requests, all 4xx with a reason"

    if len(keys) < 2:
        return
    # Last: over the limit of wrong keys, the whole address is refused for a minute, right keys included.
    @check("auth: wrong API keys are throttled")
    def _wrong_keys() -> str:
        codes = [httpx.post(f"{api}/api/search", json={"query": "saw"}, headers={"X-API-Key": f"guess{i}"},
                            timeout=30).status_code for i in range(12)]
        assert 429 in codes, f"12 wrong keys answered {sorted(set(codes))}"
        return f"429 after {codes.index(429)} wrong keys"

    @check("health: no paths or hosts without a key, no probe")
    def _health() -> str:
        text = httpx.get(f"{api}/api/health?probe=true", timeout=30).text
        assert '"dir"' not in text and "11434" not in text and '"probe"' not in text, text[:300]
        return "status only"


def probe_chat(chat: str) -> None:
    @check("CORS: another origin gets no credentialed access to the chat")
    def _cors() -> str:
        evil = {"Origin": EVIL_ORIGIN}
        got = httpx.get(f"{chat}/project/settings", headers=evil, timeout=30)
        assert "access-control-allow-origin" not in got.headers, "GET answered a foreign origin with CORS headers"
        pre = httpx.options(f"{chat}/project/threads", timeout=30,
                            headers={**evil, "Access-Control-Request-Method": "POST"})
        assert "access-control-allow-origin" not in pre.headers, "the preflight allowed a foreign origin"
        ws = httpx.get(f"{chat}/ws/socket.io/?EIO=4&transport=polling", headers=evil, timeout=30)
        assert ws.status_code == 400, f"the websocket handshake from a foreign origin answered {ws.status_code}"
        own = httpx.get(f"{chat}/ws/socket.io/?EIO=4&transport=polling", headers={"Origin": chat}, timeout=30)
        assert own.status_code != 400, "the chat's own origin was refused"
        return "no CORS headers for a foreign origin; its websocket handshake refused"


def probe_chat_login(chat: str, user: tuple[str, str]) -> None:
    endpoints = [("POST", "/api/search", {"query": "the simile of the saw", "k": 1, "mode": "bm25"}),
                 ("POST", "/api/sessions", None), ("POST", "/api/query", {"query": "What is the simile of the saw?"}),
                 ("GET", "/api/suttas/MN%2021", None)]

    @check("login: a password-protected chat's /api answers no one who is not logged in")
    def _anonymous() -> str:
        for method, path, body in endpoints:
            r = httpx.request(method, f"{chat}{path}", json=body, timeout=60)
            assert r.status_code == 401, f"{method} {path} without a login: HTTP {r.status_code}"
        health = httpx.get(f"{chat}/api/health?probe=true", timeout=30).text
        assert '"dir"' not in health and "11434" not in health and '"probe"' not in health, health[:300]
        return f"{len(endpoints)} endpoints 401 without a login; /api/health status only"

    @check("login: the chat's login cookie or token opens /api, from the chat's own page only")
    def _logged_in() -> str:
        login = httpx.post(f"{chat}/login", data={"username": user[0], "password": user[1]}, timeout=30)
        assert login.status_code == 200, f"logging in: HTTP {login.status_code}"
        cookies = login.cookies
        token = cookies.get("access_token") or ""  # the same signed token a script sends as a Bearer token
        for method, path, body in endpoints:
            r = httpx.request(method, f"{chat}{path}", json=body, cookies=cookies, timeout=120)
            assert r.status_code == 200, f"{method} {path} logged in: HTTP {r.status_code}"
        bearer = httpx.post(f"{chat}/api/sessions", headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert bearer.status_code == 200, f"with the token as Bearer: HTTP {bearer.status_code}"
        foreign = httpx.post(f"{chat}/api/sessions", cookies=cookies, headers={"Origin": EVIL_ORIGIN}, timeout=30)
        assert foreign.status_code == 401, f"the cookie sent by a foreign page: HTTP {foreign.status_code}"
        return "cookie and Bearer token 200; the same cookie from a foreign origin 401"


def _scholar(args: list[str], env: dict[str, str], timeout: float = COMMAND_TIMEOUT_S) -> subprocess.CompletedProcess:
    """`scholar ARGS` to its end; a server that starts although it should not is stopped at the timeout."""
    cmd = [sys.executable, "-m", "chat.cli", *args]
    try:
        return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"`scholar {' '.join(args)}` was still running after {timeout:g} s") from exc


# A bad value must stop the command before it does anything: servers are given a port, and must not listen on it.
BAD_SETTINGS = [
    ("SCHOLAR_API_KEYS", '[""]', "serve"), ("SCHOLAR_API_KEYS", " , , ", "serve"),
    ("SCHOLAR_API_KEYS", "[not json", "stats"), ("SCHOLAR_API_SEARCH_RATE", "ten", "ask"),
    ("SCHOLAR_API_QUERY_RATE", "-1", "serve"), ("SCHOLAR_API_READ_TIMEOUT", "-1", "chat"),
    ("SCHOLAR_OLLAMA_FIRST_TOKEN_TIMEOUT", "0", "ingest"), ("SCHOLAR_VERIFIER_MODE", "llm", "eval"),
]


def probe_settings(env: dict[str, str]) -> None:
    @check("settings: a value that cannot be used stops every command with one line, exit 2")
    def _bad() -> str:
        for variable, value, command in BAD_SETTINGS:
            args = {"serve": ["serve", "--port", str(_free_port())], "chat": ["chat", "--port", str(_free_port())],
                    "ask": ["ask", "What is burning?"], "eval": ["eval", "claims", "--claims", "none.jsonl"],
                    "ingest": ["ingest", "--no-progress"]}.get(command, [command])
            done = _scholar(args, {**env, variable: value})
            lines = done.stderr.strip().splitlines()
            what = f"{variable}={value!r} scholar {command}"
            assert done.returncode == 2, f"{what}: exit {done.returncode}: {done.stderr[-300:]}"
            assert len(lines) == 1 and variable in lines[0], f"{what}: {len(lines)} lines: {done.stderr[-300:]}"
        return f"{len(BAD_SETTINGS)} bad values: each exit 2 with one line naming the variable"


def probe_ingest(env: dict[str, str], tmp: Path) -> None:
    corpus = tmp / "tiny-corpus"
    corpus.mkdir()
    (corpus / "notes.md").write_text("# Probe notes\n\nThe simile of the saw teaches patience.\n")
    (corpus / "talk.txt").write_text("Generosity is the first of the ten perfections.\n")
    (corpus / "saved-page.pdf").write_bytes(b"<!DOCTYPE html>\n<html><body><p>Not a PDF</p></body></html>\n")
    ingest_env = {**env, "SCHOLAR_INDEX_DIR": str(tmp / "tiny-index"), "SCHOLAR_CORPUS_PATHS": str(corpus)}
    reports: list[dict] = []  # the run that did the work, for its skipped files

    @check("ingest: two at once on one index, only one does the work")
    def _concurrent() -> str:
        cmd = [sys.executable, "-m", "chat.cli", "ingest", "--no-progress", "--json"]
        runs = [subprocess.Popen(cmd, cwd=REPO, env=ingest_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for _ in range(2)]
        outcomes = []
        for run in runs:
            out, err = run.communicate(timeout=600)
            if run.returncode == 0:
                outcomes.append(("ran", json.loads(out)))
            else:
                assert run.returncode == 2 and "another ingest" in err, f"exit {run.returncode}: {err[-300:]}"
                outcomes.append(("refused", err.strip().splitlines()[-1]))
        worked = [r for kind, r in outcomes if kind == "ran" and r["files_ingested"]]
        reports.extend(worked)
        assert len(worked) == 1, f"{len(worked)} of the two runs ingested files: {outcomes}"
        kinds = sorted(kind for kind, _ in outcomes)
        return ("the second said another ingest is running" if kinds == ["ran", "refused"] else
                "the second ran after the first and found nothing to do")

    @check("ingest: a web page saved as .pdf is skipped as what it is")
    def _html_pdf() -> str:
        if not reports:  # the check above found no single run that did the work: one of its own
            done = _scholar(["ingest", "--no-progress", "--json"],
                            {**ingest_env, "SCHOLAR_INDEX_DIR": str(tmp / "tiny-index-2")}, timeout=600)
            assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-300:]}"
            reports.append(json.loads(done.stdout))
        reason = {Path(path).name: why for path, why in reports[0]["skipped"]}.get("saved-page.pdf", "")
        assert "HTML page" in reason and "OCR" not in reason, f"skipped as: {reason!r}"
        return reason


# ---- servers --------------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _server(args: list[str], env: dict[str, str], log_path: Path, ready: str) -> Iterator[str]:
    port = _free_port()
    url = f"http://{HOST}:{port}"
    cmd = [sys.executable, "-m", "chat.cli", *args, "--host", HOST, "--port", str(port)]
    with log_path.open("w") as sink:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + ready, timeout=5).status_code < 500:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{' '.join(args)} did not start:\n{log_path.read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--api", help="an API server to probe (else one is started)")
    p.add_argument("--keys", default="", help="two of its API keys, comma-separated, for the isolation checks")
    p.add_argument("--open-api", help="an API server without keys")
    p.add_argument("--chat", help="a chat server")
    p.add_argument("--login-chat", help="a chat server with a password login (SCHOLAR_CHAT_USERS)")
    p.add_argument("--user", default=":", help="NAME:PASSWORD of one of its users")
    args = p.parse_args()

    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="scholar-probe-")))
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "SCHOLAR_LLM_PROVIDER": "scripted",
               "SCHOLAR_MEMORY_DB": str(tmp / "memory.sqlite"), "SCHOLAR_CHAT_DB": str(tmp / "chat.sqlite"),
               "SCHOLAR_CHAT_USERS": "", "SCHOLAR_TRUSTED_PROXIES": "", "SCHOLAR_API_KEYS": ""}
        user = CHAT_USER
        if args.api or args.chat or args.open_api or args.login_chat:
            api, keys, open_api, chat = args.api, [k for k in args.keys.split(",") if k], args.open_api, args.chat
            login_chat, user = args.login_chat, tuple(args.user.split(":", 1))
        else:
            print(f"starting servers (logs in {tmp})", file=sys.stderr)
            api = stack.enter_context(_server(["serve"], {**env, "SCHOLAR_API_KEYS": ",".join(KEYS)},
                                              tmp / "api.log", "/api/health"))
            open_api = stack.enter_context(_server(["serve"], env, tmp / "open-api.log", "/api/health"))
            chat = stack.enter_context(_server(["chat", "--headless"], env, tmp / "chat.log", "/project/settings"))
            login_env = {**env, "SCHOLAR_CHAT_USERS": ":".join(CHAT_USER),
                         "SCHOLAR_CHAT_DB": str(tmp / "login-chat" / "chat.sqlite")}
            login_chat = stack.enter_context(_server(["chat", "--headless"], login_env, tmp / "login-chat.log",
                                                     "/project/settings"))
            keys = KEYS
        if api:
            probe_api(api, keys, open_api)
        elif open_api:
            probe_api(open_api, [], open_api)
        if chat:
            probe_chat(chat)
        if login_chat:
            probe_chat_login(login_chat, (user[0], user[-1]))
        probe_settings(env)
        probe_ingest(env, tmp)

    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
    failed = sum(not ok for _, ok, _ in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
