"""Two `scholar serve` replicas on one PostgreSQL database (#29): each has its own copy of the index and its own
var/ folder, so the database is all they share. A session issued by replica A continues on replica B with its
memory, and killing A in the middle of a turn loses nothing that B can see.

Slow: the index is built with the real local embedding model (the replicas' processes embed queries with it) and
two server processes start. Runs in CI, where `make setup` installs PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
from pathlib import Path

import httpx
import pytest

from chat.database import memory_database
from chat.pipeline.memory import MemoryStore, SessionMemory
from chat.sessions import memory_key
from indexing.settings import ScholarSettings

from corpus import write_mini_corpus
from local_server import free_port, running

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

REPO = Path(__file__).resolve().parents[1]
FIRST = "What does the Satipatthana Sutta teach about mindfulness of the body?"
FOLLOW_UP = "Where was it taught?"


@pytest.fixture(scope="module")
def shipped_index(tmp_path_factory) -> Path:
    """An index built once, with the embedding model the replicas use, to be copied to each replica."""
    from indexing.pipeline import ingest

    root = tmp_path_factory.mktemp("built")
    corpus = write_mini_corpus(root / "corpus")
    settings = ScholarSettings(_env_file=None, index_dir=root / "index", corpus_paths=[corpus], chroma_url=None)
    ingest(settings, [corpus], progress=False)
    return root / "index"


def _replica_env(home: Path, index: Path, database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLAR_")}
    env.update({
        "SCHOLAR_INDEX_DIR": str(index), "SCHOLAR_DATABASE_URL": database_url, "SCHOLAR_LLM_PROVIDER": "scripted",
        # nothing of the replica's own may be what carries the conversation: its files are its own
        "SCHOLAR_MEMORY_DB": str(home / "memory.sqlite"), "SCHOLAR_CHAT_DB": str(home / "chat" / "history.sqlite"),
        "SCHOLAR_API_QUERY_RATE": "1000", "SCHOLAR_API_SEARCH_RATE": "1000",
        "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
    })
    return env


def _replica(tmp_path: Path, name: str, shipped: Path, database_url: str):
    home = tmp_path / name
    index = home / "index"
    shutil.copytree(shipped, index)  # "build once, ship": each replica reads its own copy
    port = free_port()
    cmd = [sys.executable, "-m", "chat.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    return port, running(cmd, f"http://127.0.0.1:{port}/api/health", tmp_path / f"{name}.log", timeout=240,
                         env=_replica_env(home, index, database_url), cwd=str(home.parent))


def _stored_turns(database_url: str, session_id: str) -> list:
    settings = ScholarSettings(_env_file=None, database_url=database_url)
    memory = SessionMemory(MemoryStore(memory_database(settings)), memory_key("api", "anonymous", session_id))
    return asyncio.run(memory.turns())


def test_a_session_continues_on_another_replica_and_survives_the_first_ones_death(shipped_index, postgres_url,
                                                                                   tmp_path):
    port_a, replica_a = _replica(tmp_path, "a", shipped_index, postgres_url)
    port_b, replica_b = _replica(tmp_path, "b", shipped_index, postgres_url)
    a, b = f"http://127.0.0.1:{port_a}/api", f"http://127.0.0.1:{port_b}/api"
    with replica_a as proc_a, replica_b:
        session = httpx.post(f"{a}/sessions", timeout=30).json()["session_id"]  # issued by A
        first = httpx.post(f"{a}/query", json={"query": FIRST, "session_id": session}, timeout=120).json()
        assert first["status"] == "answered", first

        # B accepts A's session ID (the signing secret is in the database) and reads the turn A kept
        second = httpx.post(f"{b}/query", json={"query": FOLLOW_UP, "session_id": session}, timeout=120).json()
        assert second["status"] != "failed", second
        assert second["trace"][0]["tool"] == "resolve_question"  # a turn before it was found: A's
        assert [t.question for t in _stored_turns(postgres_url, session)] == [FIRST, FOLLOW_UP]

        # A dies in the middle of a streamed turn
        with httpx.stream("POST", f"{a}/query", json={"query": FIRST, "session_id": session},
                          headers={"Accept": "text/event-stream"}, timeout=120) as stream:
            for line in stream.iter_lines():
                if line.startswith("event:"):  # the turn has started on A
                    os.kill(proc_a.pid, signal.SIGKILL)
                    break
        proc_a.wait(timeout=30)

        # nothing B can see was lost: the two finished turns, whole, in order (the killed turn whole or absent)
        turns = _stored_turns(postgres_url, session)
        assert [t.question for t in turns[:2]] == [FIRST, FOLLOW_UP] and len(turns) in (2, 3)
        assert all(t.answer for t in turns)
        third = httpx.post(f"{b}/query", json={"query": FOLLOW_UP, "session_id": session}, timeout=120).json()
        assert third["status"] != "failed", third
        assert len(_stored_turns(postgres_url, session)) == len(turns) + 1
