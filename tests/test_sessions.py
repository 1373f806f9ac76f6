"""Conversations belong to their owner: an API key, a chat user, or a server-issued ID. The real Scholar with the
scripted LLM over the shared tiny index, behind the real API app; the memory file is one for all interfaces."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from chat.api.routes import create_app
from chat.runtime import Runtime
from chat.sessions import SessionIssuer, load_secret, memory_key

from scholar_helpers import scholar_for

SECRET_Q = "What does the Fire Sermon say is burning? My locker code is 4471."
FIRST = "Thought: I can answer.\nAnswer: The eye is burning, sights are burning [SN 35.28:1.4]."
FOLLOW = "What is the all?\nWhy is the eye burning?"


def _client(scholar, **settings) -> TestClient:
    s = scholar.settings.model_copy(update={"api_query_rate": 100, "api_search_rate": 100, **settings})
    scholar.settings = s
    return TestClient(create_app(Runtime(s, library=scholar.library, scholar=scholar)))


def _prompt_text(llm, since: int = 0) -> str:
    return "\n".join(m.content or "" for prompt in llm.prompts[since:] for m in prompt)


def test_another_api_key_reusing_a_session_id_sees_nothing_of_it(base, tmp_path):
    scholar, llm = scholar_for(base, [FIRST, FOLLOW, FIRST, FOLLOW, FIRST, FOLLOW],
                               memory_db=tmp_path / "memory.sqlite")
    client = _client(scholar, api_keys=["alice-key", "mallory-key"])
    alice, mallory = {"X-API-Key": "alice-key"}, {"X-API-Key": "mallory-key"}
    a = client.post("/api/query", json={"query": SECRET_Q, "session_id": "shared"}, headers=alice)
    assert a.status_code == 200 and a.json()["session_id"] == "shared"
    # A follow-up, because only a follow-up's prompt carries the earlier turns: a new question would show nothing
    # of another's conversation even if memory were shared.
    asked_before = len(llm.prompts)
    m = client.post("/api/query", json={"query": "And what comes right after that?", "session_id": "shared"},
                    headers=mallory)
    assert m.status_code == 200
    mallory_prompts = _prompt_text(llm, asked_before)
    assert "4471" not in mallory_prompts and "4471" not in m.text
    # ... nor wrote into it: Alice's own follow-up sees her turn, and not Mallory's
    asked_before = len(llm.prompts)
    client.post("/api/query", json={"query": "To whom was it taught?", "session_id": "shared"}, headers=alice)
    alice_prompts = _prompt_text(llm, asked_before)
    assert "4471" in alice_prompts and "right after that" not in alice_prompts


def test_the_same_key_continues_its_own_session(base, tmp_path):
    scholar, llm = scholar_for(base, [FIRST, FOLLOW, FIRST, FOLLOW], memory_db=tmp_path / "memory.sqlite")
    client = _client(scholar, api_keys=["alice-key"])
    headers = {"X-API-Key": "alice-key"}
    client.post("/api/query", json={"query": SECRET_Q, "session_id": "mine"}, headers=headers)
    client.post("/api/query", json={"query": "And what comes right after that?", "session_id": "mine"},
                headers=headers)
    assert "4471" in "\n".join(m.content or "" for m in llm.prompts[-2])  # the second turn's agent prompt


def test_without_keys_only_server_issued_session_ids_are_accepted(base, tmp_path):
    scholar, llm = scholar_for(base, [FIRST, FOLLOW, FIRST, FOLLOW], memory_db=tmp_path / "memory.sqlite")
    client = _client(scholar)
    guessed = client.post("/api/query", json={"query": SECRET_Q, "session_id": "chat-thread-uuid"})
    assert guessed.status_code == 422 and "/api/sessions" in guessed.json()["detail"]
    issued = client.post("/api/sessions").json()["session_id"]
    forged = issued[:-4] + ("0000" if not issued.endswith("0000") else "1111")
    assert client.post("/api/query", json={"query": "saw", "session_id": forged}).status_code == 422
    assert llm.prompts == []  # refused before any model call
    assert client.post("/api/query", json={"query": SECRET_Q, "session_id": issued}).status_code == 200
    again = client.post("/api/query", json={"query": "And what comes right after that?", "session_id": issued})
    assert again.json()["session_id"] == issued
    assert "4471" in "\n".join(m.content or "" for m in llm.prompts[-2])


async def test_an_api_client_naming_a_chat_thread_does_not_continue_that_chat(base, tmp_path):
    scholar, llm = scholar_for(base, [FIRST, FOLLOW, FIRST, FOLLOW], memory_db=tmp_path / "memory.sqlite")
    thread = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
    await scholar.aask(SECRET_Q, session_id=memory_key("chat", "reader", thread))  # what the chat does
    client = _client(scholar, api_keys=["k"])
    asked_before = len(llm.prompts)
    r = client.post("/api/query", json={"query": "And what comes right after that?", "session_id": thread},
                    headers={"X-API-Key": "k"})
    assert r.status_code == 200
    assert "4471" not in _prompt_text(llm, asked_before) and "4471" not in r.text


def test_memory_keys_separate_interfaces_and_owners():
    keys = {memory_key("chat", "alice", "t1"), memory_key("chat", "bob", "t1"), memory_key("api", "alice", "t1"),
            memory_key("cli", "local", "t1"), memory_key("chat", "a:b", "c"), memory_key("chat", "a", "b:c")}
    assert len(keys) == 6


def test_issued_ids_survive_a_restart_and_the_secret_is_private(tmp_path):
    path = tmp_path / "session-secret"
    first = SessionIssuer(load_secret(path))
    sid = first.issue()
    assert SessionIssuer(load_secret(path)).valid(sid)
    assert path.stat().st_mode & 0o077 == 0
    assert not SessionIssuer(b"another secret").valid(sid)
    assert not first.valid("s-abc.def") and not first.valid(sid + "x")


@pytest.mark.parametrize("path, body", [
    ("/api/query", b'{"query": "What is burning? \\ud800"}'),
    ("/api/search", b'{"query": "\\udfff burning"}'),
    ("/api/search", b'{"query": "burning", "collection": "\\ud800"}'),
])
@pytest.mark.parametrize("stream", [False, True])
def test_a_lone_surrogate_is_a_4xx_with_a_reason_and_nothing_is_saved(base, tmp_path, path, body, stream):
    scholar, llm = scholar_for(base, [FIRST, FOLLOW], memory_db=tmp_path / "memory.sqlite")
    client = _client(scholar, api_keys=["k"])
    headers = {"X-API-Key": "k", "Content-Type": "application/json"}
    if stream:
        headers["Accept"] = "text/event-stream"
    if path == "/api/query":
        body = body[:-1] + b', "session_id": "kept"}'
    r = client.post(path, content=body, headers=headers)
    assert r.status_code == 422 and "surrogate" in r.json()["detail"]
    assert llm.prompts == []
    assert not (tmp_path / "memory.sqlite").exists()



def test_the_cli_session_is_a_namespace_of_its_own(monkeypatch, capsys):
    from types import SimpleNamespace

    from chat.cli.ask import run_ask
    from chat.pipeline.answer import Answer

    from scholar_helpers import FakeScholar

    scholar = FakeScholar(Answer(answer="All is burning.", status="answered", confidence=1.0))
    runtime = SimpleNamespace(scholar=lambda: scholar)
    args = SimpleNamespace(question="What is burning?", session="9b1deb4d-chat-thread", mode="auto", json=True,
                           trace=None)
    assert run_ask(args, runtime) == 0
    assert scholar.calls[0]["session_id"] == memory_key("cli", "local", "9b1deb4d-chat-thread")
    assert scholar.calls[0]["session_id"] != memory_key("chat", "reader", "9b1deb4d-chat-thread")


def test_each_chat_login_owns_its_api_sessions(base, tmp_path):
    # The API mounted in a chat with a password login: the login (here a stand-in that names the user from a
    # header) is the owner, as a key is; a client-chosen session ID is then theirs alone.
    from fastapi import FastAPI

    from chat.api.routes import mount_api

    scholar, llm = scholar_for(base, [FIRST, FOLLOW, FIRST, FOLLOW, FIRST, FOLLOW],
                               memory_db=tmp_path / "memory.sqlite")
    s = scholar.settings.model_copy(update={"api_query_rate": 100, "api_search_rate": 100})
    scholar.settings = s
    host = FastAPI()
    mount_api(host, Runtime(s, library=scholar.library, scholar=scholar), login=lambda r: r.headers.get("x-user"))
    client = TestClient(host)
    assert client.post("/api/query", json={"query": SECRET_Q, "session_id": "shared"}).status_code == 401
    assert llm.prompts == []
    ann, bob = {"X-User": "ann"}, {"X-User": "bob"}
    assert client.post("/api/query", json={"query": SECRET_Q, "session_id": "shared"}, headers=ann).status_code == 200
    asked_before = len(llm.prompts)
    follow = {"query": "And what comes right after that?", "session_id": "shared"}
    assert client.post("/api/query", json=follow, headers=bob).status_code == 200
    assert "4471" not in _prompt_text(llm, asked_before)
    asked_before = len(llm.prompts)
    own = client.post("/api/query", json={"query": "To whom was it taught?", "session_id": "shared"}, headers=ann)
    assert own.status_code == 200
    assert "4471" in _prompt_text(llm, asked_before) and "right after that" not in _prompt_text(llm, asked_before)
