"""The Chainlit handlers under a mocked Chainlit context (as Chainlit's own tests do), with a scripted Scholar.

What the browser would receive is read from the session's `emit` calls: streamed tokens, tool steps and their
parent, side elements, follow-up actions and error messages.
"""

from __future__ import annotations

import uuid
from contextlib import asynccontextmanager
from unittest.mock import AsyncMock, Mock

import pytest

from chat.errors import LLMUnavailableError
from chat.pipeline.answer import Answer, Citation, TraceStep
from chat.sessions import memory_key
from indexing.settings import ScholarSettings

from helpers_tools import open_library
from scholar_helpers import FakeScholar, scholar_for


@pytest.fixture(scope="module")
def app():
    import chat.ui.app

    return chat.ui.app


@pytest.fixture(scope="module")
def chat_settings(tmp_path_factory):
    base = tmp_path_factory.mktemp("chat-app")
    return ScholarSettings(_env_file=None, index_dir=base / "index", chat_db=base / "chat" / "history.sqlite",
                           chat_users="", max_input_chars=300)


@pytest.fixture(autouse=True)
def no_persistence(monkeypatch):
    """The handlers' output is checked from the emitted events; history persistence is tested on its own."""
    import sys

    import chainlit  # noqa: F401 - loads the submodules below (`chainlit.step` the attribute is a function)

    for name in ("chainlit.element", "chainlit.message", "chainlit.step"):
        monkeypatch.setattr(sys.modules[name], "get_data_layer", lambda: None)


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return open_library(tmp_path_factory.mktemp("chat-lib"))


class Recorder:
    def __init__(self, session):
        self.session = session

    @property
    def events(self) -> list[tuple[str, object]]:
        return [(c.args[0], c.args[1] if len(c.args) > 1 else None) for c in self.session.emit.call_args_list]

    def of(self, name: str) -> list:
        return [data for event, data in self.events if event == name]

    def messages(self, type_: str = "assistant_message") -> list[dict]:
        return [d for d in self.of("new_message") if d["type"] == type_]

    def files(self) -> dict[str, object]:
        """name -> content of every element the handlers stored."""
        return {c.kwargs["name"]: c.kwargs["content"] for c in self.session.persist_file.call_args_list}


@asynccontextmanager
async def chainlit_session(thread_id: str | None = None):
    from chainlit.context import ChainlitContext, context_var
    from chainlit.session import WebsocketSession
    from chainlit.user import PersistedUser

    session = Mock(spec=WebsocketSession)
    session.id = f"session-{uuid.uuid4()}"
    session.thread_id = thread_id or str(uuid.uuid4())
    session.user = Mock(spec=PersistedUser, id="user-1", identifier="reader")
    session.user_env, session.chat_settings, session.chat_profile = {}, {}, None
    session.http_referer, session.client_type, session.languages = None, "webapp", ["en"]
    session.has_first_interaction = True
    session.emit = AsyncMock()
    session.persist_file = AsyncMock(side_effect=lambda **kw: {"id": str(uuid.uuid4())})
    context = ChainlitContext(session)
    token = context_var.set(context)
    try:
        yield Recorder(session)
    finally:
        context_var.reset(token)


def _sn35_chunk(library) -> str:
    return library.docstore.chunks_of("sn35.28")[0].chunk_id


def burning_answer(library, answer_text: str = "All is burning [SN 35.28:1.3].", **fields) -> Answer:
    """An answer citing SN 35.28 from the tiny index, after one search step, with four follow-ups."""
    step = TraceStep(tool="search_passages", input={"query": "What is burning?"},
                     output_summary="1. SN 35.28:1.3 bm25=7.10 dense=0.61 fused=0.033", duration_ms=12.0)
    base = dict(
        answer=answer_text,
        citations=[Citation(ref="SN 35.28:1.3", sutta_id="SN 35.28", title="Burning",
                            chunk_id=_sn35_chunk(library), segment_start="sn35.28:1.3", segment_end="sn35.28:1.3")],
        follow_ups=["What is the all?", "What are the three fires?", "How does one become disillusioned?",
                    "A fourth that must not be shown?"],
        trace=[step],
    )
    return Answer(**{**base, **fields})


def burning_scholar(library, answer_text: str = "All is burning [SN 35.28:1.3].", **fields) -> FakeScholar:
    return FakeScholar(burning_answer(library, answer_text, **fields), library=library)


class FakeRuntime:
    def __init__(self, settings, scholar=None, error: Exception | None = None):
        self.settings = settings
        self._scholar, self.error = scholar, error

    def scholar(self):
        if self.error is not None:
            raise self.error
        return self._scholar


async def _ask(app, text: str) -> None:
    import chainlit as cl
    from chainlit.config import config

    message = cl.Message(content=text, type="user_message")
    await config.code.on_message(message)


async def test_answer_streams_tokens_then_final_message_with_steps_sources_and_follow_ups(app, chat_settings, library,
                                                                                          monkeypatch):
    scholar = burning_scholar(library)
    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(chat_settings, scholar))
    async with chainlit_session(thread_id="thread-A") as rec:
        await _ask(app, "What does the Fire Sermon say is burning?")

    assert [(c["question"], c["session_id"]) for c in scholar.calls] == [  # memory key = user + thread
        ("What does the Fire Sermon say is burning?", memory_key("chat", "reader", "thread-A"))]
    # streamed: a stream start, then tokens, escaped, adding up to the answer
    start = rec.of("stream_start")
    assert len(start) == 1
    streamed = start[0]["output"] + "".join(d["token"] for d in rec.of("stream_token"))
    assert streamed == "All is burning \\[SN 35.28:1.3\\]."
    answer_id = start[0]["id"]

    # the tool step: type tool, nested under the turn's run step, with its input, summary and duration
    run_steps = [d for d in rec.of("new_message") if d["type"] == "run"]
    tool_new = [d for d in rec.of("new_message") if d["type"] == "tool"]
    tool_end = [d for d in rec.of("update_message") if d["type"] == "tool"]
    assert len(run_steps) == 1 and len(tool_new) == 1
    assert tool_new[0]["name"] == "search_passages" and tool_new[0]["parentId"] == run_steps[0]["id"]
    assert '"query": "What is burning?"' in tool_new[0]["input"]
    assert "fused=0\\.033" in tool_end[-1]["output"] and "12 ms" in tool_end[-1]["output"]
    assert tool_end[-1]["end"] and tool_new[0]["start"]

    # the final message replaces the stream: rendered answer with the sources line
    final = [d for d in rec.messages() if d["id"] == answer_id]
    assert final and "**Sources:** SN 35.28:1.3" in final[-1]["output"]
    assert final[-1]["metadata"]["status"] == "answered"

    # the citation is a side element named exactly like the citation, so Chainlit links it in the text
    elements = rec.of("element")
    assert [(e["name"], e["display"], e["forId"]) for e in elements] == [("SN 35.28:1.3", "side", answer_id)]
    panel = rec.files()["SN 35.28:1.3"]
    assert "**▶ SN 35\\.28:1\\.3**" in panel and "Mendicants, all is burning" in panel
    assert "ādittaṁ" in panel  # the Pali beside it
    assert "SN 35\\.28:1\\.1" in panel  # context around the cited line

    # three follow-ups (never more) and the trace download, attached to the answer
    actions = rec.of("action")
    follow = [a for a in actions if a["name"] == "follow_up"]
    assert [a["payload"]["question"] for a in follow] == ["What is the all?", "What are the three fires?",
                                                          "How does one become disillusioned?"]
    assert all(a["forId"] == answer_id for a in actions)
    assert [a["name"] for a in actions].count("download_trace") == 1
    # the answer is shown whole before its follow-ups are offered (they come from a later, slower model call)
    order = [event for event, data in rec.events if event == "action" or (
        event in ("new_message", "update_message") and data.get("id") == answer_id and "Sources" in data["output"])]
    assert order[0] != "action" and order.index("action") > 0


async def test_follow_up_button_asks_the_question_in_the_same_chat(app, chat_settings, library, monkeypatch):
    import chainlit as cl
    from chainlit.config import config

    scholar = burning_scholar(library)
    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(chat_settings, scholar))
    async with chainlit_session(thread_id="thread-B") as rec:
        action = cl.Action(name="follow_up", payload={"question": "What are the three fires?"}, label="x")
        await config.code.action_callbacks["follow_up"](action)
    assert [(c["question"], c["session_id"]) for c in scholar.calls] == [
        ("What are the three fires?", memory_key("chat", "reader", "thread-B"))]
    asked = rec.messages("user_message")
    assert [m["output"] for m in asked] == ["What are the three fires?"]
    names = [event for event, _ in rec.events]
    assert names.count("task_start") == 1 and names.count("task_end") == 1  # the UI shows it as running
    run = [d for d in rec.of("new_message") if d["type"] == "run"]
    assert run and run[0]["parentId"] == asked[0]["id"]
    assert any(d["type"] == "tool" and d["parentId"] == run[0]["id"] for d in rec.of("new_message"))


async def test_how_a_follow_up_was_resolved_is_shown_as_the_first_step(app, chat_settings, library, monkeypatch):
    resolved = TraceStep(tool="resolve_question", input={"question": "Where was it taught?"},
                         output_summary="Follow-up: it points back ('it'); scope: SN 35.28", duration_ms=0.4)
    search = TraceStep(tool="lookup_sutta", input={"sutta_id": "SN 35.28", "query": "Where was it taught?"})
    scholar = burning_scholar(library, trace=[resolved, search])
    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(chat_settings, scholar))
    async with chainlit_session(thread_id="thread-R") as rec:
        await _ask(app, "Where was it taught?")
    tools = [d for d in rec.of("new_message") if d["type"] == "tool"]
    assert [d["name"] for d in tools] == ["Follow-up or new question?", "lookup_sutta"]
    ended = [d for d in rec.of("update_message") if d["type"] == "tool"]
    assert "scope: SN 35\\.28" in ended[0]["output"]


async def test_download_trace_sends_the_turn_trace_as_a_json_file(app, chat_settings, library, monkeypatch):
    import json

    import chainlit as cl
    from chainlit.config import config

    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(chat_settings, burning_scholar(library)))
    async with chainlit_session() as rec:
        await _ask(app, "What is burning?")
        trace_action = next(a for a in rec.of("action") if a["name"] == "download_trace")
        await config.code.action_callbacks["download_trace"](
            cl.Action(name="download_trace", payload=trace_action["payload"], label="Download trace"))
        files = [e for e in rec.of("element") if e["type"] == "file"]
        assert len(files) == 1 and files[0]["name"].endswith(".json") and files[0]["mime"] == "application/json"
        data = json.loads(rec.files()[files[0]["name"]])
        assert data["question"] == "What is burning?"
        assert data["trace"][0]["tool"] == "search_passages" and data["trace"][0]["duration_ms"] == 12.0

        # an unknown turn (e.g. from before a restart) gets an explanation, not an exception
        await config.code.action_callbacks["download_trace"](
            cl.Action(name="download_trace", payload={"turn": "gone"}, label="Download trace"))
        assert "no longer held" in rec.messages()[-1]["output"]


@pytest.mark.parametrize("text, expected", [("   ", "Please type a question"), ("why? " * 100, "the limit is 300")])
async def test_empty_or_overlong_input_is_refused_kindly(app, chat_settings, library, monkeypatch, text,
                                                        expected):
    scholar = burning_scholar(library)
    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(chat_settings, scholar))
    async with chainlit_session() as rec:
        await _ask(app, text)
    assert scholar.calls == []
    assert expected in rec.messages()[-1]["output"]
    assert rec.of("stream_start") == []


async def test_missing_llm_says_what_to_do_and_the_chat_keeps_working(app, chat_settings, library, monkeypatch):
    runtime = FakeRuntime(chat_settings, error=LLMUnavailableError("No LLM: start Ollama (`ollama serve`) or run "
                                                    "`scholar models install`."))
    monkeypatch.setattr(app, "RUNTIME", runtime)
    async with chainlit_session(thread_id="thread-C") as rec:
        await _ask(app, "What is burning?")
        said = rec.messages()[-1]["output"]
        assert "not ready to answer" in said and "ollama serve" in said and "scholar models install" in said
        assert not any(d.get("isError") for d in rec.messages())  # a kind message, not a crash

        runtime.error, runtime._scholar = None, burning_scholar(library)  # the user starts Ollama
        await _ask(app, "What is burning?")
        assert "**Sources:** SN 35.28:1.3" in rec.messages()[-1]["output"]


async def test_failed_answer_shows_the_error_and_the_passages(app, chat_settings, library, monkeypatch):
    scholar = burning_scholar(library, answer_text="", status="failed",
                              error="The model stopped responding: is `ollama serve` running?")
    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(chat_settings, scholar))
    async with chainlit_session() as rec:
        await _ask(app, "What is burning?")
    out = rec.messages()[-1]["output"]
    assert "could not answer" in out and "ollama serve" in out and "Passages found" in out
    assert [e["name"] for e in rec.of("element")] == ["SN 35.28:1.3"]


async def test_unsupported_sentence_is_removed_and_listed_with_its_reason(app, chat_settings, tmp_path_factory,
                                                                         monkeypatch):

    reply = ("Thought: I can answer.\nAnswer: Mendicants, all is burning [SN 35.28:1.3]. The Buddha then flew to "
             "the city of gold [SN 35.28:2.1].")
    scholar, _ = scholar_for(tmp_path_factory.getbasetemp() / "agent-index", [reply, "What is the all?\nWhy?"])
    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(chat_settings, scholar))
    async with chainlit_session() as rec:
        await _ask(app, "What does the Fire Sermon say is burning?")
    out = rec.messages()[-1]["output"]
    answer_part = out.split("Not supported by the cited passages")[0]
    assert "city of gold" not in answer_part and "⚠ unsupported" not in answer_part
    assert "“The Buddha then flew to the city of gold.” — The cited lines do not say this" in out


async def test_model_and_corpus_html_reach_the_browser_escaped(app, chat_settings, library, monkeypatch):
    hostile = 'Look <script>alert(1)</script><img src=x onerror="alert(2)"> ![t](http://evil/t.png)'
    scholar = burning_scholar(library, answer_text=hostile + " [SN 35.28:1.3].", citations=[
        Citation(ref="SN 35.28:1.3", sutta_id=None, title="<img src=y onerror=alert(3)>", excerpt=hostile)])
    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(chat_settings, scholar))
    async with chainlit_session() as rec:
        await _ask(app, "<script>alert(4)</script> what burns?")
    texts = [d["output"] for d in rec.messages()] + [d["token"] for d in rec.of("stream_token")]
    texts += [str(v) for v in rec.files().values()] + [d["output"] for d in rec.of("stream_start")]
    texts += [d.get("output", "") for d in rec.of("update_message")]
    for text in texts:
        cleaned = text.replace("\\\\", "")
        assert "<script" not in cleaned.replace("\\<script", ""), text
        assert "<img" not in cleaned.replace("\\<img", ""), text
        assert "![" not in cleaned, text


async def test_chat_start_is_fast_and_loads_nothing(app, chat_settings, monkeypatch):
    from chainlit.config import config

    class Exploding:
        settings = chat_settings

        def scholar(self):
            raise AssertionError("chat start must not build the runtime")

        def library(self):
            raise AssertionError("chat start must not load the library")

    monkeypatch.setattr(app, "RUNTIME", Exploding())
    async with chainlit_session() as rec:
        await config.code.on_chat_start()
    assert rec.messages() == []  # no progress record: an index built whole, nothing to say


async def test_a_new_chat_says_how_far_the_semantic_index_is_while_it_is_built(app, tmp_path, monkeypatch):
    import os

    from chainlit.config import config

    from indexing.progress import SemanticProgress, write_progress

    settings = ScholarSettings(_env_file=None, index_dir=tmp_path / "index")
    settings.index_dir.mkdir()
    monkeypatch.setattr(app, "RUNTIME", FakeRuntime(settings))
    write_progress(settings.index_dir, SemanticProgress(chunks_done=410, chunks_total=1000, rate=1.0,
                                                        pid=os.getpid(), state="embedding"))
    async with chainlit_session() as rec:
        await config.code.on_chat_start()
    (notice,) = rec.messages()
    assert "Semantic search: 41% — about 10 min" in notice["output"] and "You can ask now" in notice["output"]

    write_progress(settings.index_dir, SemanticProgress(chunks_done=1000, chunks_total=1000))
    async with chainlit_session() as rec:
        await config.code.on_chat_start()
    assert rec.messages() == []
