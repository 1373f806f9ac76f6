"""The one runtime: library, LLM and Scholar built once per process, a failed LLM build remembered or retried."""

from __future__ import annotations

import pytest

from chat.errors import ChatError, LLMUnavailableError
from chat.providers.scripted import ScriptedLLM
from chat.runtime import IndexUnavailableError, Runtime

from helpers_tools import open_library


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "agent-index")


class Factory:
    """Fails while `down` is set, like a stopped Ollama; counts the builds it was asked for."""

    def __init__(self):
        self.down = True
        self.calls = 0

    def __call__(self, settings):
        self.calls += 1
        if self.down:
            raise LLMUnavailableError("Ollama is not running")
        return ScriptedLLM(["unused"])


def test_everything_is_built_once_and_shared(library):
    factory = Factory()
    factory.down = False
    runtime = Runtime(library.settings, library=library, llm_factory=factory)
    assert not runtime.scholar_loaded and factory.calls == 0
    first = runtime.scholar()
    assert runtime.scholar() is first and first.library is library and factory.calls == 1
    assert runtime.llm_name and runtime.llm_name.startswith("scripted")


def test_a_failed_llm_build_is_remembered_for_a_while(library):
    factory = Factory()
    runtime = Runtime(library.settings, library=library, llm_factory=factory, llm_retry_after_s=60)
    for _ in range(3):
        with pytest.raises(ChatError, match="Ollama is not running"):
            runtime.scholar()
    assert factory.calls == 1 and runtime.llm_error == "Ollama is not running"


def test_with_no_retry_wait_the_next_question_builds_again(library):
    factory = Factory()
    runtime = Runtime(library.settings, library=library, llm_factory=factory, llm_retry_after_s=0)
    with pytest.raises(LLMUnavailableError):
        runtime.scholar()
    factory.down = False  # the reader starts Ollama
    assert runtime.scholar() is not None and factory.calls == 2 and runtime.llm_error is None


def test_an_unexpected_provider_error_becomes_a_chat_error(library):
    def broken(settings):
        raise RuntimeError("segfault in a provider library")

    runtime = Runtime(library.settings, library=library, llm_factory=broken)
    with pytest.raises(ChatError, match="could not be started: RuntimeError: segfault"):
        runtime.scholar()


def test_no_index_says_what_to_do(settings):
    with pytest.raises(IndexUnavailableError, match="scholar ingest"):
        Runtime(settings).library()


def test_warm_up_builds_in_the_background(library):
    factory = Factory()
    factory.down = False
    runtime = Runtime(library.settings, library=library, llm_factory=factory)
    runtime.warm_up().join(timeout=30)
    assert runtime.scholar_loaded and factory.calls == 1
