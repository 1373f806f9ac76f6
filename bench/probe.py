"""Security probe against running servers: conversation isolation, rate limits, malformed input, CORS.

    python bench/probe.py                      # starts its own servers on loopback (scripted LLM), probes, stops
    python bench/probe.py --api URL [--keys A,B] [--open-api URL] [--chat URL]   # probes servers already running

Started here: `scholar serve` twice (with the API keys `probe-a,probe-b`, and without keys) and `scholar chat`
(no login), all over the configured index with the scripted LLM, their memory and history in a temporary folder.
Each check prints PASS or FAIL with what it saw; the exit status is the number of failures. `make probe` runs it.
"""

from __future__ import annotations

import argparse
import contextlib
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
    args = p.parse_args()

    with contextlib.ExitStack() as stack:
        if args.api or args.chat or args.open_api:
            api, keys, open_api, chat = args.api, [k for k in args.keys.split(",") if k], args.open_api, args.chat
        else:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="scholar-probe-")))
            env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "SCHOLAR_LLM_PROVIDER": "scripted",
                   "SCHOLAR_MEMORY_DB": str(tmp / "memory.sqlite"), "SCHOLAR_CHAT_DB": str(tmp / "chat.sqlite"),
                   "SCHOLAR_CHAT_USERS": "", "SCHOLAR_TRUSTED_PROXIES": ""}
            print(f"starting servers (logs in {tmp})", file=sys.stderr)
            api = stack.enter_context(_server(["serve"], {**env, "SCHOLAR_API_KEYS": ",".join(KEYS)},
                                              tmp / "api.log", "/api/health"))
            open_api = stack.enter_context(_server(["serve"], {**env, "SCHOLAR_API_KEYS": ""}, tmp / "open-api.log",
                                                   "/api/health"))
            chat = stack.enter_context(_server(["chat", "--headless"], env, tmp / "chat.log", "/project/settings"))
            keys = KEYS
        if api:
            probe_api(api, keys, open_api)
        elif open_api:
            probe_api(open_api, [], open_api)
        if chat:
            probe_chat(chat)

    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
    failed = sum(not ok for _, ok, _ in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
