"""Chat history: our SQLite schema under Chainlit's SQLAlchemy data layer, element files, and who may read them."""

from __future__ import annotations

import json
import uuid
from unittest.mock import Mock

import pytest

from chat.ui.auth import check_password, ensure_auth_secret, parse_users
from chat.ui.history import FILES_ROUTE, HistoryStore, build_data_layer, mount_file_route


@pytest.fixture
async def context():
    from chainlit.context import ChainlitContext, context_var
    from chainlit.session import HTTPSession

    session = Mock(spec=HTTPSession)
    session.thread_id = str(uuid.uuid4())
    session.id = "http-session"
    token = context_var.set(ChainlitContext(session))
    yield session
    context_var.reset(token)


async def test_a_chat_round_trips_through_the_sqlite_history(tmp_path, context):
    from chainlit.element import Text
    from chainlit.user import User

    layer, storage = build_data_layer(HistoryStore.sqlite(tmp_path / "chat" / "history.sqlite"))
    user = await layer.create_user(User(identifier="reader"))
    thread_id = context.thread_id
    await layer.update_thread(thread_id, name="What is burning?", user_id=user.id)
    question_id, answer_id = str(uuid.uuid4()), str(uuid.uuid4())
    base = {"threadId": thread_id, "streaming": False, "createdAt": "2025-01-01T00:00:00Z", "metadata": {}}
    await layer.create_step({**base, "id": question_id, "name": "reader", "type": "user_message",
                             "output": "What is burning?"})
    await layer.create_step({**base, "id": answer_id, "name": "Canon Scholar", "type": "assistant_message",
                             "parentId": None, "output": "All is burning \\[SN 35.28:1.3\\].",
                             "metadata": {"status": "answered"}, "modes": {"mode": "qa"}, "defaultOpen": False,
                             "showInput": "json", "language": None, "autoCollapse": False})
    await layer.create_step({**base, "id": str(uuid.uuid4()), "name": "search_passages", "type": "tool",
                             "parentId": answer_id, "input": '{"query": "burning"}', "output": "1. SN 35.28:1.3",
                             "start": "2025-01-01T00:00:00Z", "end": "2025-01-01T00:00:01Z"})
    panel = Text(name="SN 35.28:1.3", content="**▶ SN 35.28:1.3** Mendicants, all is burning.", display="side",
                 for_id=answer_id, thread_id=thread_id, mime="text/plain")
    await layer.create_element(panel)

    thread = await layer.get_thread(thread_id)
    assert thread is not None and thread["name"] == "What is burning?" and thread["userIdentifier"] == "reader"
    outputs = {s["type"]: s["output"] for s in thread["steps"]}
    assert outputs["user_message"] == "What is burning?" and "all is burning" in outputs["assistant_message"].lower()
    assert outputs["tool"] == "1. SN 35.28:1.3"
    [element] = thread["elements"]
    assert element["name"] == "SN 35.28:1.3" and element["display"] == "side" and element["forId"] == answer_id
    assert element["url"].startswith(f"{FILES_ROUTE}/{user.id}/")

    listed = await layer.list_threads(
        __import__("chainlit.types", fromlist=["Pagination"]).Pagination(first=10),
        __import__("chainlit.types", fromlist=["ThreadFilter"]).ThreadFilter(userId=user.id))
    assert [t["id"] for t in listed.data] == [thread_id]

    # what Chainlit's element endpoint reads when the reopened thread's panel is clicked (props stored NULL)
    fetched = await layer.get_element(thread_id, element["id"])
    assert fetched is not None and fetched["props"] == {} and fetched["url"] == element["url"]

    digest = element["url"].rsplit("/", 1)[1]
    assert storage.read(user.id, digest) == (panel.content.encode(), "text/plain")
    assert storage.read(user.id, "../../etc/passwd") is None


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def history_store(request, tmp_path) -> HistoryStore:
    if request.param == "sqlite":
        return HistoryStore.sqlite(tmp_path / "chat" / "history.sqlite")
    from chat.database import Database

    return HistoryStore(Database.from_url(request.getfixturevalue("postgres_url"), "chat history"), tmp_path / "files")


async def test_an_answers_later_metadata_survives_an_earlier_write_stored_last(history_store, context):
    """Chainlit persists a message's send and its update in separate tasks: stored out of order, the send's
    metadata must not wipe the follow-ups and trace the update added."""
    layer, _ = build_data_layer(history_store)
    thread_id, answer_id = context.thread_id, str(uuid.uuid4())
    await layer.update_thread(thread_id, name="What is burning?")
    step = {"threadId": thread_id, "streaming": False, "createdAt": "2025-01-01T00:00:00Z", "id": answer_id,
            "name": "Canon Scholar", "type": "assistant_message", "output": "All is burning."}
    await layer.create_step({**step, "metadata": {"status": "answered", "follow_ups": ["Why?"], "trace": {"t": 1}}})
    await layer.create_step({**step, "metadata": {"status": "answered", "confidence": 0.9}})  # the send, late
    thread = await layer.get_thread(thread_id)
    [stored] = [s for s in thread["steps"] if s["id"] == answer_id]
    meta = stored["metadata"] if isinstance(stored["metadata"], dict) else json.loads(stored["metadata"])
    assert meta == {"status": "answered", "confidence": 0.9, "follow_ups": ["Why?"], "trace": {"t": 1}}


async def test_stored_elements_are_served_to_the_owner_of_their_thread(tmp_path, context):
    """Chainlit names a file after its thread's user at the moment it stores it; a first answer's panels can be
    stored before the thread has its user (the url then says "unknown"). Whoever owns the thread now may read them;
    nobody else, and nothing that no element of a thread points to."""
    from chainlit.auth import get_current_user
    from chainlit.element import Text
    from chainlit.user import User
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    db = HistoryStore.sqlite(tmp_path / "history.sqlite")
    layer, storage = build_data_layer(db)
    user = await layer.create_user(User(identifier="reader"))
    thread_id = context.thread_id
    await layer.update_thread(thread_id)  # what Chainlit's create_step does before the thread has its user
    panel = Text(name="SN 35.28:1.3", content="<b>text</b>", display="side", for_id=str(uuid.uuid4()),
                 thread_id=thread_id, mime="text/html")
    await layer.create_element(panel)
    await layer.update_thread(thread_id, user_id=user.id)
    [element] = (await layer.get_thread(thread_id))["elements"]
    assert element["url"].startswith(f"{FILES_ROUTE}/unknown/")
    loose = await storage.upload_file(f"{user.id}/el-2/SN 1.1:1.1", "no element points here", mime="text/plain")

    app = FastAPI()

    @app.get("/{full_path:path}")
    def catch_all(full_path: str):  # a stand-in; tests/test_ui_startup.py uses Chainlit's own app
        return {"ui": full_path}

    mount_file_route(app, storage, db)
    who = {"user": Mock(id=user.id)}
    app.dependency_overrides[get_current_user] = lambda: who["user"]
    client = TestClient(app)
    response = client.get(element["url"])
    assert response.status_code == 200 and response.text == "<b>text</b>"
    assert response.headers["content-type"].startswith("application/octet-stream")  # never rendered as HTML
    assert client.get(loose["url"]).status_code == 404
    who["user"] = Mock(id="someone-else")
    assert client.get(element["url"]).status_code == 404
    who["user"] = Mock(id="unknown")  # the name in the url grants nothing
    assert client.get(element["url"]).status_code == 404
    who["user"] = None
    assert client.get(element["url"]).status_code == 404


def test_users_and_passwords():
    users = parse_users(" ann:s3cret:with:colons , bob:pw")
    assert users == {"ann": "s3cret:with:colons", "bob": "pw"}
    assert parse_users("") == {} and parse_users("  ") == {}
    assert check_password(users, "ann", "s3cret:with:colons")
    assert not check_password(users, "ann", "s3cret")
    assert not check_password(users, "zed", "\0unknown")


def test_auth_secret_is_made_once_and_kept(tmp_path, monkeypatch):
    monkeypatch.delenv("CHAINLIT_AUTH_SECRET", raising=False)
    path = tmp_path / "chat" / "auth-secret"
    first = ensure_auth_secret(path)
    monkeypatch.delenv("CHAINLIT_AUTH_SECRET")
    assert ensure_auth_secret(path) == first and len(first) >= 32
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    monkeypatch.setenv("CHAINLIT_AUTH_SECRET", "from-env")
    assert ensure_auth_secret(path) == "from-env"


async def test_local_reader_exists_before_the_first_login(tmp_path):
    store = HistoryStore.sqlite(tmp_path / "history.sqlite")
    layer, _ = build_data_layer(store)
    store.ensure_user("reader")
    store.ensure_user("reader")  # idempotent: one row, same ID
    first = await layer.get_user("reader")
    assert first is not None and first.identifier == "reader"
    assert (await layer.get_user("reader")).id == first.id


@pytest.mark.parametrize("spec, fragment", [
    ("alice", "entry 1 has no ':'"),  # was: open access, nothing logged
    ("alice:pa,ss", "entry 2 has no ':'"),  # was: password "pa"
    ("ann:pw,,bob:pw", "entry 2 is empty"),
    (":nopass", "entry 1 has no name"),
    ("carl:", "empty password"),
    ("ann:a,ann:b", "repeats the user 'ann'"),
])
def test_a_malformed_user_list_is_refused_with_its_reason(spec, fragment):
    from chat.ui.auth import UsersSpecError

    with pytest.raises(UsersSpecError, match="SCHOLAR_CHAT_USERS") as err:
        parse_users(spec)
    assert fragment in str(err.value)


def test_scholar_chat_refuses_to_start_with_a_malformed_user_list(monkeypatch, caplog):
    import subprocess

    from chat.cli.main import main

    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a))
    monkeypatch.setenv("SCHOLAR_CHAT_USERS", "alice")
    assert main(["chat"]) == 2
    assert started == []
    assert "SCHOLAR_CHAT_USERS: entry 1" in caplog.text


def test_a_login_is_refused_not_waved_through_while_its_database_cannot_be_read(tmp_path):
    """Logged-out tokens are known only to the database: while it cannot be read, no token counts (fail closed),
    and the reason names the database in one line."""
    from chainlit.user import User

    from chat.ui.logins import LoginGuard, RevokedLoginError

    store = HistoryStore.sqlite(tmp_path / "history.sqlite")
    build_data_layer(store)
    guard = LoginGuard({}, "reader", "secret", store)
    user = User(identifier="reader", metadata=guard.stamp({}, "reader"))
    guard.check(user)  # a current login counts
    (tmp_path / "history.sqlite").write_bytes(b"not a database any more " * 200)
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"history.sqlite{suffix}").unlink(missing_ok=True)
    with pytest.raises(RevokedLoginError, match=r"logins cannot be checked now: The chat history \(the file "):
        guard.check(user)
