"""Chat history: our SQLite schema under Chainlit's SQLAlchemy data layer, element files, and who may read them."""

from __future__ import annotations

import uuid
from unittest.mock import Mock

import pytest

from chat.ui.auth import check_password, ensure_auth_secret, parse_users
from chat.ui.history import FILES_ROUTE, build_data_layer, mount_file_route


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

    layer, storage = build_data_layer(tmp_path / "chat" / "history.sqlite")
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

    digest = element["url"].rsplit("/", 1)[1]
    assert storage.read(user.id, digest) == (panel.content.encode(), "text/plain")
    assert storage.read(user.id, "../../etc/passwd") is None


def test_stored_elements_are_served_to_their_owner_only(tmp_path):
    import asyncio

    from chainlit.auth import get_current_user
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    _, storage = build_data_layer(tmp_path / "history.sqlite")
    result = asyncio.run(storage.upload_file("owner-1/el-1/SN 35.28:1.3", "<b>text</b>", mime="text/html"))
    app = FastAPI()

    @app.get("/{full_path:path}")
    def catch_all(full_path: str):  # a stand-in; tests/test_ui_startup.py uses Chainlit's own app
        return {"ui": full_path}

    mount_file_route(app, storage)
    who = {"user": Mock(id="owner-1")}
    app.dependency_overrides[get_current_user] = lambda: who["user"]
    client = TestClient(app)
    response = client.get(result["url"])
    assert response.status_code == 200 and response.text == "<b>text</b>"
    assert response.headers["content-type"].startswith("application/octet-stream")  # never rendered as HTML
    who["user"] = Mock(id="someone-else")
    assert client.get(result["url"]).status_code == 404
    who["user"] = None
    assert client.get(result["url"]).status_code == 404


def test_users_and_passwords():
    users = parse_users(" ann:s3cret:with:colons , bob:pw,broken, :nopass,carl:")
    assert users == {"ann": "s3cret:with:colons", "bob": "pw"}
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
    from chat.ui.history import ensure_user

    layer, _ = build_data_layer(tmp_path / "history.sqlite")
    ensure_user(tmp_path / "history.sqlite", "reader")
    ensure_user(tmp_path / "history.sqlite", "reader")  # idempotent: one row, same ID
    first = await layer.get_user("reader")
    assert first is not None and first.identifier == "reader"
    assert (await layer.get_user("reader")).id == first.id
