"""Load check for the HTTP API: N concurrent clients hitting /api/search on loopback for a fixed time.

Starts `scholar serve` on 127.0.0.1 (a free port) over the configured index, with the search rate limit raised
so the limiter counts but never refuses, waits for /api/health, then runs the clients (httpx, async) for
--seconds and reports throughput, latency percentiles and errors (which must be zero). Bounded: the run stops
at the deadline, each request has a timeout, and the server is stopped at the end.

    python bench/load_api.py [--clients 20] [--seconds 30] [--mode hybrid] [--k 8]

Prints a Markdown table and writes bench/out/load_api.json.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import os
import platform
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

log = logging.getLogger("bench.load_api")

REPO = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"  # loopback only, whatever the arguments
STARTUP_TIMEOUT_S = 300.0
REQUEST_TIMEOUT_S = 30.0

# Generic topics a reader might search for, crossed with a few phrasings: many distinct queries, so the server's
# query-vector cache does not turn the run into a cache benchmark. Not taken from any evaluation file.
TOPICS = [
    "mindfulness of breathing", "the four noble truths", "loving-kindness", "anger and patience", "the five hindrances",
    "right livelihood", "giving and generosity", "death and impermanence", "the six sense fields",
    "craving and rebirth",
    "the aggregates are not self", "jhana and absorption", "ethical conduct of lay followers", "the middle way",
    "dependent origination", "sleep and dreams", "wealth and debt", "friendship with good people",
    "restraint of speech",
    "a monk who is sick", "fear in the forest", "the elements earth water fire air", "gratitude to parents",
    "kings and rulers", "the simile of the raft", "heavenly realms and gods", "contentment with robes and almsfood",
    "doubt about the teacher", "teaching the dhamma to others", "women and the order of nuns",
]
PHRASINGS = ["{t}", "what the Buddha taught about {t}", "{t} in the discourses", "passages on {t}", "{t} and the mind"]


def _queries() -> list[str]:
    return [p.format(t=t) for t in TOPICS for p in PHRASINGS]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _start_server(port: int, rate: int, server_log: Path) -> subprocess.Popen:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "SCHOLAR_API_SEARCH_RATE": str(rate)}
    cmd = [sys.executable, "-m", "chat.cli", "serve", "--host", HOST, "--port", str(port)]
    log.info("starting %s (log: %s)", " ".join(cmd), server_log)
    server_log.parent.mkdir(parents=True, exist_ok=True)
    # A file, not a pipe: nobody reads a pipe during the run, and a full one would stall the server.
    with server_log.open("w") as sink:
        return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)


def _stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


async def _wait_ready(base: str, proc: subprocess.Popen, server_log: Path) -> dict:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    async with httpx.AsyncClient(timeout=5.0) as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}: {server_log.read_text()[-2000:]}")
            try:
                r = await client.get(f"{base}/api/health")
                if r.status_code == 200:
                    return r.json()
            except httpx.TransportError:
                pass
            await asyncio.sleep(1.0)
    raise TimeoutError(f"server not ready after {STARTUP_TIMEOUT_S:.0f} s")


async def _client(client: httpx.AsyncClient, base: str, queries, deadline: float, body: dict, out: dict) -> None:
    while time.monotonic() < deadline:
        payload = {**body, "query": next(queries)}
        started = time.perf_counter()
        try:
            r = await client.post(f"{base}/api/search", json=payload)
            elapsed = time.perf_counter() - started
            if r.status_code == 200 and r.json().get("passages"):
                out["latencies"].append(elapsed)
                out["types"].add(tuple(r.json()["search_types_used"]))
            else:
                out["errors"].append(f"HTTP {r.status_code}: {r.text[:200]}")
        except httpx.HTTPError as exc:
            out["errors"].append(f"{type(exc).__name__}: {exc}")


async def _run(base: str, clients: int, seconds: float, body: dict) -> dict:
    queries = itertools.cycle(_queries())
    out: dict = {"latencies": [], "errors": [], "types": set()}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S, limits=limits) as client:
        for q in _queries()[:5]:  # warm-up, not measured: first BM25/Chroma touches, thread pool start
            await client.post(f"{base}/api/search", json={**body, "query": q})
        started = time.monotonic()
        deadline = started + seconds
        await asyncio.gather(*(_client(client, base, queries, deadline, body, out) for _ in range(clients)))
        out["elapsed"] = time.monotonic() - started
    return out


def _summary(out: dict, clients: int, seconds: float, body: dict, health: dict) -> dict:
    lat = np.array(out["latencies"]) * 1000
    ok = len(lat)
    return {
        "endpoint": "POST /api/search",
        "mode": body["mode"],
        "k": body["k"],
        "clients": clients,
        "seconds": seconds,
        "elapsed_s": round(out["elapsed"], 2),
        "requests_ok": ok,
        "errors": len(out["errors"]),
        "error_samples": out["errors"][:5],
        "throughput_rps": round(ok / out["elapsed"], 2) if out["elapsed"] else 0.0,
        "latency_ms": {
            "p50": round(float(np.percentile(lat, 50)), 1) if ok else None,
            "p95": round(float(np.percentile(lat, 95)), 1) if ok else None,
            "p99": round(float(np.percentile(lat, 99)), 1) if ok else None,
            "mean": round(float(lat.mean()), 1) if ok else None,
            "max": round(float(lat.max()), 1) if ok else None,
        },
        "search_types_used": sorted("+".join(t) for t in out["types"]),
        "distinct_queries": len(_queries()),
        "index": {k: health.get("index", {}).get(k) for k in ("chunks", "documents", "dense_vectors")},
        "embedding": health.get("embedding", {}).get("model"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "at": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def _table(s: dict) -> str:
    lat = s["latency_ms"]
    rows = [
        ("endpoint", f"{s['endpoint']} ({s['mode']}, k={s['k']})"),
        ("index", f"{s['index']['chunks']} chunks, {s['index']['dense_vectors']} vectors"),
        ("clients × duration", f"{s['clients']} × {s['elapsed_s']} s"),
        ("requests (ok)", str(s["requests_ok"])),
        ("errors", str(s["errors"])),
        ("throughput", f"{s['throughput_rps']} req/s"),
        ("latency p50 / p95 / p99", f"{lat['p50']} / {lat['p95']} / {lat['p99']} ms"),
        ("latency mean / max", f"{lat['mean']} / {lat['max']} ms"),
        ("search types", ", ".join(s["search_types_used"])),
        ("machine", f"{s['machine']['cpus']} CPUs (shared)"),
    ]
    return "\n".join(["| measure | value |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--mode", choices=["hybrid", "bm25", "dense"], default="hybrid")
    p.add_argument("--k", type=int, default=8)
    p.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "load_api.json")
    args = p.parse_args(argv)
    if not (1 <= args.clients <= 100 and 1 <= args.seconds <= 300):
        p.error("keep the check bounded: 1-100 clients, 1-300 seconds")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("httpx").setLevel(logging.WARNING)

    port = _free_port()
    base = f"http://{HOST}:{port}"
    server_log = args.out.with_suffix(".server.log")
    proc = _start_server(port, rate=1_000_000, server_log=server_log)
    try:
        health = asyncio.run(_wait_ready(base, proc, server_log))
        log.info("server ready: %s", health.get("index"))
        body = {"k": args.k, "mode": args.mode}
        out = asyncio.run(_run(base, args.clients, args.seconds, body))
    finally:
        _stop_server(proc)
    summary = _summary(out, args.clients, args.seconds, body, health)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    sys.stdout.write(_table(summary) + "\n")
    return 0 if summary["errors"] == 0 and summary["requests_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
