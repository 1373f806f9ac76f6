"""chat.database on SQLite and on a real PostgreSQL (a throwaway cluster, tests/pg_cluster.py): versioned migrations
that run once however many processes start together, shared secrets, the memory and the chat history on PostgreSQL,
and failures told in one line."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from chat.database import Database, StoreError, memory_database, migrate, shared_secret
from chat.providers.rule_based import rule_based_reply
from chat.providers.scripted import ScriptedLLM

from scholar_helpers import scholar_for

REPO = Path(__file__).resolve().parents[1]
QUESTION = "What does the Fire Sermon say is burning?"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request, tmp_path) -> Database:
    if request.param == "sqlite":
        return Database.sqlite(tmp_path / "state.sqlite", "conversation memory")
    return Database.from_url(request.getfixturevalue("postgres_url"), "conversation memory")


def test_each_step_runs_once_however_many_start_together(db):
    # Neither step may run twice: a plain CREATE TABLE fails if repeated, and the counter would show it.
    steps = ["CREATE TABLE once_a (n INTEGER)", "INSERT INTO once_a (n) VALUES (1)"]
    errors: list[BaseException] = []

    def run() -> None:
        try:
            migrate(db, "probe", steps)
        except BaseException as exc:  # collected: the assertion below shows them
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert migrate(db, "probe", steps) == 0  # nothing left to do
    assert migrate(db, "probe", [*steps, "INSERT INTO once_a (n) VALUES (2)"]) == 1  # a new release adds a step
    engine = db.sync_engine()
    with engine.connect() as conn:
        assert conn.execute(text("SELECT n FROM once_a ORDER BY n")).scalars().all() == [1, 2]
    engine.dispose()


def test_a_shared_secret_is_made_once_and_the_same_for_everyone(db):
    first = shared_secret(db, "api-sessions")
    assert len(first) == 64 and shared_secret(db, "api-sessions") == first
    assert shared_secret(db, "chainlit-auth") != first


@pytest.mark.postgres
async def test_twenty_first_turns_over_two_processes_worth_of_scholars_on_postgres(base, postgres_url):
    # Two Scholars (as two replicas would hold) each take ten first turns at once on a fresh database.
    scholars = []
    for _ in range(2):
        scholar, _ = scholar_for(base, [], database_url=postgres_url)
        scholar.llm = ScriptedLLM(rule_based_reply)
        scholars.append(scholar)
    answers = await asyncio.gather(*(scholars[i % 2].aask(QUESTION, session_id=f"reader-{i}") for i in range(20)))
    assert [a.error for a in answers if a.status == "failed"] == []
    # the other replica reads each session's turn: its own, once
    for i in (0, 1, 19):
        turns = await scholars[(i + 1) % 2]._memory(f"reader-{i}").turns()
        assert [t.question for t in turns] == [QUESTION]


@pytest.mark.postgres
async def test_a_chat_thread_written_by_one_process_is_listed_by_another(postgres_url, tmp_path):
    """The chat's data layer on PostgreSQL, through two processes: one writes a thread as Chainlit does (user,
    thread, steps, a side panel), the other lists the user's threads and reads the thread back."""
    write = textwrap.dedent(f"""
        import asyncio, uuid
        from chainlit.context import ChainlitContext, context_var
        from chainlit.element import Text
        from chainlit.session import HTTPSession
        from chainlit.user import User
        from chat.database import Database
        from chat.ui.history import HistoryStore, build_data_layer
        from pathlib import Path

        async def main():
            store = HistoryStore(Database.from_url({postgres_url!r}, "chat history"), Path({str(tmp_path)!r}))
            layer, _ = build_data_layer(store)
            session = HTTPSession(id="s", client_type="webapp", thread_id=str(uuid.uuid4()))
            context_var.set(ChainlitContext(session))
            user = await layer.create_user(User(identifier="alice"))
            tid = session.thread_id
            await layer.update_thread(tid, name="What is burning?", user_id=user.id, tags=["sutta"],
                                      metadata={{"mode": "qa"}})
            base = {{"threadId": tid, "streaming": False, "createdAt": "2025-01-01T00:00:00Z", "metadata": {{}}}}
            await layer.create_step({{**base, "id": str(uuid.uuid4()), "name": "alice", "type": "user_message",
                                      "output": "What is burning?"}})
            await layer.create_step({{**base, "id": str(uuid.uuid4()), "name": "Canon Scholar",
                                      "type": "assistant_message", "output": "All is burning.", "modes": {{"a": 1}},
                                      "createdAt": "2025-01-01T00:00:01Z"}})
            await layer.create_element(Text(name="SN 35.28:1.3", content="the panel", display="side",
                                            for_id=str(uuid.uuid4()), thread_id=tid))
            print(tid)

        asyncio.run(main())
    """)
    read = textwrap.dedent(f"""
        import asyncio, json, sys
        from chainlit.types import Pagination, ThreadFilter
        from chat.database import Database
        from chat.ui.history import HistoryStore, build_data_layer
        from pathlib import Path

        async def main():
            store = HistoryStore(Database.from_url({postgres_url!r}, "chat history"), Path({str(tmp_path)!r}))
            layer, _ = build_data_layer(store)
            user = await layer.get_user("alice")
            page = await layer.list_threads(Pagination(first=10), ThreadFilter(userId=user.id))
            thread = await layer.get_thread(sys.argv[1])
            print(json.dumps({{"listed": [t["id"] for t in page.data],
                               "steps": [s["output"] for s in thread["steps"]],
                               "elements": [e["name"] for e in thread["elements"]],
                               "owner": store.element_owner(thread["elements"][0]["url"]) == user.id}}))

        asyncio.run(main())
    """)
    env = {"PYTHONPATH": str(REPO), "HOME": str(tmp_path), "CHAINLIT_APP_ROOT": str(tmp_path),
           "PATH": "/usr/bin:/bin"}
    wrote = subprocess.run([sys.executable, "-c", write], capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=120)
    assert wrote.returncode == 0, wrote.stderr[-3000:]
    thread_id = wrote.stdout.strip().splitlines()[-1]
    got = subprocess.run([sys.executable, "-c", read, thread_id], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert got.returncode == 0, got.stderr[-3000:]
    import json

    seen = json.loads(got.stdout.strip().splitlines()[-1])
    assert seen == {"listed": [thread_id], "steps": ["What is burning?", "All is burning."],
                    "elements": ["SN 35.28:1.3"], "owner": True}


def test_an_unreachable_postgres_is_one_line_naming_it(settings):
    from local_server import free_port

    port = free_port()  # nothing listens there
    db = memory_database(settings.model_copy(update={"database_url": f"postgresql://u:secret@127.0.0.1:{port}/x"}))
    with pytest.raises(StoreError) as caught:
        migrate(db, "memory", ["SELECT 1"])
    message = str(caught.value)
    assert message == (f"The conversation memory (the PostgreSQL database x at 127.0.0.1:{port}) cannot be reached: "
                       "check that PostgreSQL is running and that SCHOLAR_DATABASE_URL is right; then try again.")
    assert "secret" not in message


@pytest.mark.parametrize("url, fragment", [
    ("mysql://u@h/db", "names a mysql database; only PostgreSQL"),
    ("not a url", "is not a database URL"),
])
def test_a_database_url_that_cannot_be_used_is_refused_with_its_reason(url, fragment):
    with pytest.raises(StoreError, match=fragment):
        Database.from_url(url, "conversation memory")
