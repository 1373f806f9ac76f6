"""Load run of replicas sharing one PostgreSQL database (#29): R `scholar serve` replicas x C clients x S seconds.

Starts a throwaway PostgreSQL cluster on loopback (tests/pg_cluster.py: Debian's postgresql package), builds the
tests' mini corpus into an index once with the local embedding model (or takes --index-dir) and copies it to each
replica, each with its own var/ folder, so the database is all the replicas share. The LLM is the scripted one
(the `scripted` provider): the run measures the state layer and the pipeline, not a model.

Each client takes a session ID from one replica (POST /api/sessions), then asks questions one after another
until the deadline, each on the next replica in turn, so every conversation moves between replicas. Afterwards
every session's stored memory is read from the database and must be exactly that client's questions, in order:
nothing lost, nothing of another's. An error is any non-200 reply, a transport error or an answer with status
"failed"; the run passes with none.

    python bench/replicas.py [--replicas 2] [--clients 20] [--seconds 60] [--index-dir DIR]

Prints a Markdown table and writes bench/out/replicas.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # the repo's packages; the tests' cluster and corpus helpers

from chat.database import memory_database  # noqa: E402
from chat.pipeline.memory import MemoryStore, SessionMemory  # noqa: E402
from chat.sessions import memory_key  # noqa: E402
from indexing.settings import ScholarSettings  # noqa: E402

log = logging.getLogger("bench.replicas")

HOST = "127.0.0.1"  # loopback only
STARTUP_TIMEOUT_S = 300.0
REQUEST_TIMEOUT_S = 120.0

# Questions the mini corpus (tests/corpus.py) can answer or decline, and follow-ups that lean on the last turn.
QUESTIONS = [
    "What does the Satipatthana Sutta teach about mindfulness of the body?",
    "What is the simile of the saw?",
    "What are the four noble truths?",
    "What did the Buddha teach in the first sermon?",
    "What is the mind the forerunner of?",
    "Which one thing occupies a man's mind?",
    "Where was it taught?",
    "What comes right after that?",
]


def build_index(root: Path) -> Path:
    from indexing.pipeline import ingest

    from corpus import write_mini_corpus

    corpus = write_mini_corpus(root / "corpus")
    settings = ScholarSettings(_env_file=None, index_dir=root / "index", corpus_paths=[corpus], chroma_url=None)
    ingest(settings, [corpus], progress=False)
    return root / "index"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_replica(home: Path, shipped: Path, database_url: str) -> tuple[subprocess.Popen, str]:
    index = home / "index"
    shutil.copytree(shipped, index)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLAR_")}
    env.update({
        "SCHOLAR_INDEX_DIR": str(index), "SCHOLAR_DATABASE_URL": database_url, "SCHOLAR_LLM_PROVIDER": "scripted",
        "SCHOLAR_MEMORY_DB": str(home / "memory.sqlite"), "SCHOLAR_CHAT_DB": str(home / "chat" / "history.sqlite"),
        # the limiter counts but never refuses: this run is about errors, not about the limits
        "SCHOLAR_API_QUERY_RATE": "100000", "SCHOLAR_API_SEARCH_RATE": "100000",
        "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
    })
    log_file = open(home / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "chat.cli", "serve", "--host", HOST, "--port", str(port)],
                            stdout=log_file, stderr=subprocess.STDOUT, env=env, cwd=home)
    return proc, f"http://{HOST}:{port}/api"


def wait_healthy(procs: list[subprocess.Popen], urls: list[str]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    for proc, url in zip(procs, urls, strict=True):
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"replica {url} did not start")
            time.sleep(0.5)


async def client(n: int, urls: list[str], deadline: float, http: httpx.AsyncClient, out: dict) -> None:
    rng = random.Random(n)
    errors, latencies, asked = out["errors"], out["latencies"], []
    home = n % len(urls)
    try:
        reply = await http.post(f"{urls[home]}/sessions")
        reply.raise_for_status()
        session = reply.json()["session_id"]
    except httpx.HTTPError as exc:
        errors.append(f"client {n}: session: {exc!r}")
        return
    turn = 0
    while time.monotonic() < deadline:
        url = urls[(home + turn) % len(urls)]
        question = rng.choice(QUESTIONS)
        started = time.perf_counter()
        try:
            reply = await http.post(f"{url}/query", json={"query": question, "session_id": session})
            body = reply.json()
            if reply.status_code != 200 or body.get("status") == "failed":
                errors.append(f"client {n}: {reply.status_code} {body.get('error') or body.get('detail')}")
            else:
                asked.append(question)
            if body.get("session_id") not in (session, None):
                errors.append(f"client {n}: answer for another session {body.get('session_id')!r}")
        except (httpx.HTTPError, ValueError) as exc:
            errors.append(f"client {n}: {exc!r}")
        latencies.append(time.perf_counter() - started)
        turn += 1
    out["sessions"].append((session, asked))


async def check_memories(database_url: str, sessions: list[tuple[str, list[str]]]) -> list[str]:
    store = MemoryStore(memory_database(ScholarSettings(_env_file=None, database_url=database_url)))
    problems = []
    for session, asked in sessions:
        stored = [t.question for t in await SessionMemory(store, memory_key("api", "anonymous", session)).turns()]
        if stored != asked:
            problems.append(f"session {session[:12]}…: stored {len(stored)} turns, asked {len(asked)}")
    return problems


async def run_clients(urls: list[str], clients_per_replica: int, seconds: float) -> dict:
    out: dict = {"errors": [], "latencies": [], "sessions": []}
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=len(urls) * clients_per_replica + 4)
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S, limits=limits) as http:
        await asyncio.gather(*(client(n, urls, deadline, http, out) for n in range(len(urls) * clients_per_replica)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--clients", type=int, default=20, help="clients per replica")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--index-dir", type=Path, default=None, help="an index to ship (default: the mini corpus)")
    parser.add_argument("--json", type=Path, default=REPO / "bench" / "out" / "replicas.json")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from pg_cluster import cluster

    work = Path(tempfile.mkdtemp(prefix="scholar-replicas-"))
    procs: list[subprocess.Popen] = []
    try:
        shipped = args.index_dir or build_index(work / "built")
        with cluster(work) as database_url:
            urls = []
            for r in range(args.replicas):
                (work / f"replica-{r}").mkdir()
                proc, url = start_replica(work / f"replica-{r}", shipped, database_url)
                procs.append(proc)
                urls.append(url)
            wait_healthy(procs, urls)
            log.info("%d replicas up; %d clients for %.0f s", len(urls), len(urls) * args.clients, args.seconds)
            started = time.monotonic()
            out = asyncio.run(run_clients(urls, args.clients, args.seconds))
            elapsed = time.monotonic() - started
            memory_problems = asyncio.run(check_memories(database_url, out["sessions"]))
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(timeout=30)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        shutil.rmtree(work, ignore_errors=True)

    lat = np.array(out["latencies"]) if out["latencies"] else np.zeros(1)
    result = {
        "replicas": args.replicas, "clients": args.replicas * args.clients, "seconds": round(elapsed, 1),
        "requests": len(out["latencies"]), "errors": len(out["errors"]), "error_samples": out["errors"][:10],
        "sessions": len(out["sessions"]), "sessions_with_wrong_memory": len(memory_problems),
        "memory_samples": memory_problems[:10], "requests_per_s": round(len(out["latencies"]) / elapsed, 2),
        "latency_s": {"p50": round(float(np.percentile(lat, 50)), 3), "p95": round(float(np.percentile(lat, 95)), 3),
                      "max": round(float(lat.max()), 3)},
        "index": str(args.index_dir or "tests' mini corpus"), "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print("| replicas | clients | seconds | requests | req/s | p50 s | p95 s | errors | sessions | wrong memory |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {result['replicas']} | {result['clients']} | {result['seconds']} | {result['requests']} | "
          f"{result['requests_per_s']} | {result['latency_s']['p50']} | {result['latency_s']['p95']} | "
          f"{result['errors']} | {result['sessions']} | {result['sessions_with_wrong_memory']} |")
    for line in out["errors"][:10] + memory_problems[:10]:
        print(" ", line)
    return 0 if not out["errors"] and not memory_problems else 1


if __name__ == "__main__":
    sys.exit(main())
