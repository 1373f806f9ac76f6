"""The Ollama provider at the HTTP seam: a fake Ollama on loopback, the real llama-index/ollama/httpx clients."""

from __future__ import annotations

import asyncio
import time

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole

from chat.errors import LLMUnavailableError
from chat.providers.ollama import OllamaLLM, build_ollama_llm, normalize_host, probe_ollama

from fake_ollama import FakeOllama, free_port

MODEL = "qwen2.5:7b-instruct"
USER = [ChatMessage(role=MessageRole.USER, content="What is the simile of the saw?")]


@pytest.fixture
def ollama_settings(settings):
    return settings.model_copy(update={
        "ollama_model": MODEL, "ollama_connect_timeout": 1.0, "ollama_request_timeout": 1.5,
        "llm_context_window": 4096, "llm_max_tokens": 64,
    })


def _llm(settings, url: str, **update) -> OllamaLLM:
    llm = build_ollama_llm(settings.model_copy(update={"ollama_host": url}))
    return llm.model_copy(update={"retry_wait": 0.01, **update})


def _stream_text(llm, messages=USER) -> tuple[str, list[str]]:
    deltas = [r.delta for r in llm.stream_chat(messages)]
    return "".join(deltas), deltas


async def _astream_text(llm, messages=USER) -> str:
    return "".join([r.delta async for r in await llm.astream_chat(messages)])


# --- normal replies ---------------------------------------------------------------------------------------
def test_chat_sends_explicit_options_and_returns_the_reply(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        llm = _llm(ollama_settings, fake.url)
        reply = llm.chat(USER)
        assert reply.message.content == "Echo: What is the simile of the saw?"
        body = fake.chat_requests()[0]
        assert body["model"] == MODEL and body["stream"] is False
        assert body["options"]["num_ctx"] == 4096 and body["options"]["num_predict"] == 64
        assert "Observation:" in body["options"]["stop"]
        assert body["options"]["seed"] == ollama_settings.llm_seed  # the same answer whatever was asked before
        # the explicit context window means no /api/show round trip
        assert [path for _, path, _ in fake.requests] == ["/api/chat"]


def test_stream_chat_yields_pieces_in_order(ollama_settings):
    with FakeOllama([MODEL], reply=lambda m: "Thought: I need passages.\nAction: search_passages") as fake:
        text, deltas = _stream_text(_llm(ollama_settings, fake.url))
        assert text == "Thought: I need passages.\nAction: search_passages"
        assert [d for d in deltas if d] == ["Thought: ", "I ", "need ", "passages.\n", "Action: ", "search_passages"]
        assert fake.chat_requests()[0]["stream"] is True


async def test_async_paths_and_complete(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        llm = _llm(ollama_settings, fake.url)
        assert (await llm.achat(USER)).message.content.startswith("Echo: What is")
        assert (await _astream_text(llm)).startswith("Echo: What is")
        assert llm.complete("hello").text == "Echo: hello"
        assert (await llm.acomplete("hi")).text == "Echo: hi"


async def test_a_reader_that_stops_early_closes_the_stream(ollama_settings):
    with FakeOllama([MODEL], reply=lambda m: "word " * 300) as fake:
        fake.token_delay = 0.02
        stream = await _llm(ollama_settings, fake.url).astream_chat(USER)
        await anext(stream)
        await stream.aclose()
        record = fake.streams[0]
        assert await asyncio.to_thread(record.ended.wait, 3), "Ollama was left streaming"
        assert record.closed_at is not None and record.sent < record.total / 2


def test_max_tokens_can_be_raised_by_copy(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        llm = _llm(ollama_settings, fake.url).model_copy(update={"max_tokens": 900})
        llm.chat(USER)
        assert fake.chat_requests()[0]["options"]["num_predict"] == 900


# --- failures: each a clear LLMUnavailableError, fast -------------------------------------------------------
def test_model_not_pulled_says_ollama_pull_on_every_path(ollama_settings):
    with FakeOllama(["llama3:8b"]) as fake:
        llm = _llm(ollama_settings, fake.url)
        for call in (lambda: llm.chat(USER), lambda: _stream_text(llm), lambda: llm.complete("x")):
            with pytest.raises(LLMUnavailableError, match=rf"ollama pull {MODEL}"):
                call()
        # a 404 is not transient: one request per call, no retries
        assert len(fake.chat_requests()) == 3


async def test_model_not_pulled_async(ollama_settings):
    with FakeOllama([]) as fake:
        llm = _llm(ollama_settings, fake.url)
        with pytest.raises(LLMUnavailableError, match="ollama pull"):
            await llm.achat(USER)
        with pytest.raises(LLMUnavailableError, match="ollama pull"):
            await _astream_text(llm)


def test_server_absent_is_reported_quickly_on_both_paths(ollama_settings):
    llm = _llm(ollama_settings, f"http://127.0.0.1:{free_port()}")
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError, match=r"not reachable.*ollama serve.*scholar models install"):
        llm.chat(USER)
    with pytest.raises(LLMUnavailableError, match="not reachable"):
        _stream_text(llm)
    assert time.monotonic() - started < 3


async def test_server_absent_async(ollama_settings):
    llm = _llm(ollama_settings, f"http://127.0.0.1:{free_port()}")
    with pytest.raises(LLMUnavailableError, match="not reachable"):
        await llm.achat(USER)
    with pytest.raises(LLMUnavailableError, match="not reachable"):
        await _astream_text(llm)


def test_hung_server_times_out_with_a_message(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        fake.hang = True
        for call in (lambda llm: llm.chat(USER), _stream_text):
            llm = _llm(ollama_settings, fake.url)  # a fresh one: a timed-out server is not asked again
            started = time.monotonic()
            with pytest.raises(LLMUnavailableError, match=r"did not answer within 1.5s"):
                call(llm)
            assert time.monotonic() - started < 5
        # timeouts are not retried: a hung server would otherwise cost max_attempts x the timeout
        assert len(fake.chat_requests()) == 2


async def test_hung_server_async(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        fake.hang = True
        llm = _llm(ollama_settings, fake.url)
        started = time.monotonic()
        with pytest.raises(LLMUnavailableError, match="did not answer"):
            await llm.achat(USER)
        assert time.monotonic() - started < 5


async def test_a_stream_that_does_not_start_fails_at_the_first_token_timeout(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        fake.hang = True
        llm = _llm(ollama_settings.model_copy(update={"ollama_request_timeout": 30.0,
                                                       "ollama_first_token_timeout": 0.5}), fake.url)
        started = time.monotonic()
        with pytest.raises(LLMUnavailableError, match=r"did not start answering within 0.5s"):
            await _astream_text(llm)
        assert time.monotonic() - started < 5  # not the 30 s read timeout


async def test_a_timed_out_server_is_not_waited_on_again(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        fake.hang = True
        llm = _llm(ollama_settings.model_copy(update={"ollama_first_token_timeout": 0.5}), fake.url)
        with pytest.raises(LLMUnavailableError):
            await _astream_text(llm)
        copy = llm.model_copy(update={"max_tokens": 900})  # notes mode's copy shares what was learnt
        for call in (lambda: _astream_text(llm), lambda: copy.achat(USER), lambda: asyncio.to_thread(llm.chat, USER)):
            started = time.monotonic()
            with pytest.raises(LLMUnavailableError, match="not asked again"):
                await call()
            assert time.monotonic() - started < 0.5
        assert len(fake.chat_requests()) == 1


def test_transient_503_is_retried_then_succeeds(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        llm = _llm(ollama_settings, fake.url)
        fake.fail_next = 2
        assert llm.chat(USER).message.content.startswith("Echo:")
        assert len(fake.chat_requests()) == 3
        fake.fail_next = 1
        assert _stream_text(llm)[0].startswith("Echo:")
        assert len(fake.chat_requests()) == 5


async def test_transient_503_retried_async(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        llm = _llm(ollama_settings, fake.url)
        fake.fail_next = 1
        assert (await _astream_text(llm)).startswith("Echo:")
        fake.fail_next = 1
        assert (await llm.achat(USER)).message.content.startswith("Echo:")
        assert len(fake.chat_requests()) == 4


def test_persistent_503_gives_up_after_max_attempts(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        llm = _llm(ollama_settings, fake.url, max_attempts=3)
        fake.fail_next = 10
        with pytest.raises(LLMUnavailableError, match="server busy"):
            llm.chat(USER)
        assert len(fake.chat_requests()) == 3


def test_connection_reset_is_retried_on_both_paths(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        llm = _llm(ollama_settings, fake.url)
        fake.reset_next = 1
        assert llm.chat(USER).message.content.startswith("Echo:")
        fake.reset_next = 2
        assert _stream_text(llm)[0].startswith("Echo:")
        assert len(fake.chat_requests()) == 5
        fake.reset_next = 5
        with pytest.raises(LLMUnavailableError, match="dropped the connection"):
            llm.chat(USER)


# --- the probe --------------------------------------------------------------------------------------------
def test_probe_reports_models_and_availability(ollama_settings):
    with FakeOllama(["qwen2.5:latest", MODEL]) as fake:
        status = probe_ollama(ollama_settings.model_copy(update={"ollama_host": fake.url}))
        assert status.reachable and status.model_available and status.error is None
        assert status.models == ["qwen2.5:latest", MODEL]
        bare = probe_ollama(ollama_settings.model_copy(update={"ollama_host": fake.url, "ollama_model": "qwen2.5"}))
        assert bare.model_available
        missing = probe_ollama(ollama_settings.model_copy(update={"ollama_host": fake.url, "ollama_model": "x:1b"}))
        assert missing.reachable and not missing.model_available and "x:1b" in missing.error


def test_probe_absent_and_hung_answer_within_seconds(ollama_settings):
    started = time.monotonic()
    absent = probe_ollama(ollama_settings.model_copy(update={"ollama_host": f"127.0.0.1:{free_port()}"}))
    assert not absent.reachable and "not running" in absent.error
    with FakeOllama([MODEL]) as fake:
        fake.hang = True
        hung = probe_ollama(ollama_settings.model_copy(update={"ollama_host": fake.url}))
        assert not hung.reachable and "did not answer within 1s" in hung.error
    assert time.monotonic() - started < 4


def test_normalize_host_accepts_the_forms_ollama_accepts():
    assert normalize_host("127.0.0.1:11434") == "http://127.0.0.1:11434"
    assert normalize_host("0.0.0.0") == "http://127.0.0.1:11434"
    assert normalize_host("https://ollama.example/") == "https://ollama.example:443"
    assert normalize_host("http://gpu-box:8080") == "http://gpu-box:8080"
    assert normalize_host("") == "http://127.0.0.1:11434"


def test_one_llm_serves_successive_event_loops(ollama_settings):
    """Scripts and the sync Scholar.ask call asyncio.run per question; a loop-bound client would fail the 2nd."""
    import asyncio

    with FakeOllama([MODEL]) as fake:
        llm = _llm(ollama_settings, fake.url)
        for _ in range(2):
            assert asyncio.run(_astream_text(llm)).startswith("Echo:")
            assert asyncio.run(llm.achat(USER)).message.content.startswith("Echo:")


async def test_a_turn_against_a_hung_ollama_costs_one_first_token_timeout(ollama_settings, tmp_path_factory):
    from chat.pipeline.scholar import Scholar

    from helpers_tools import open_library

    library = open_library(tmp_path_factory.getbasetemp() / "agent-index")
    with FakeOllama([MODEL]) as fake:
        fake.hang = True
        settings = library.settings.model_copy(update={
            "ollama_host": fake.url, "ollama_model": MODEL, "ollama_request_timeout": 30.0,
            "ollama_first_token_timeout": 1.0, "memory_db": tmp_path_factory.mktemp("mem") / "memory.sqlite"})
        scholar = Scholar(settings, library, build_ollama_llm(settings))
        started = time.monotonic()
        answer = await scholar.aask("What does the Fire Sermon say is burning?")
        took = time.monotonic() - started
    assert answer.status == "failed" and "did not start answering within 1s" in answer.error
    assert answer.error.count("did not start answering") == 1  # the fallback's refusal repeats nothing
    assert answer.citations  # the passages search found
    assert len(fake.chat_requests()) == 1  # the fallback did not wait on the same dead server again
    assert took < 15  # far below one request timeout (30 s), let alone two


async def test_a_turn_without_ollama_fails_at_once_and_says_why_once(ollama_settings, tmp_path_factory):
    from chat.pipeline.scholar import Scholar

    from helpers_tools import open_library
    from local_server import free_port

    library = open_library(tmp_path_factory.getbasetemp() / "agent-index")
    settings = library.settings.model_copy(update={
        "ollama_host": f"http://127.0.0.1:{free_port()}", "ollama_model": MODEL,  # nothing listens there
        "memory_db": tmp_path_factory.mktemp("mem") / "memory.sqlite"})
    scholar = Scholar(settings, library, build_ollama_llm(settings))
    answer = await scholar.aask("What does the Fire Sermon say is burning?")
    assert answer.status == "failed" and answer.citations
    # the agent and the fallback both met the same refused connection: one note, not "X; X"
    assert answer.error.count("Ollama is not reachable") == 1, answer.error


async def test_a_server_that_is_not_ollama_is_one_clear_error_on_every_path(ollama_settings):
    with FakeOllama([MODEL]) as fake:
        fake.garbage = True
        llm = _llm(ollama_settings, fake.url)
        for call in (lambda: llm.achat(USER), lambda: _astream_text(llm), lambda: asyncio.to_thread(llm.chat, USER),
                     lambda: asyncio.to_thread(_stream_text, llm)):
            with pytest.raises(LLMUnavailableError, match="did not answer like Ollama"):
                await call()
