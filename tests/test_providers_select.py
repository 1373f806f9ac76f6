"""build_llm: `auto` against a fake Ollama on loopback, the explicit providers, and describe_llm."""

from __future__ import annotations

import time

import pytest

from chat.errors import LLMUnavailableError
from chat.providers import model_files
from chat.providers.embedded import EmbeddedLLM
from chat.providers.ollama import OllamaLLM
from chat.providers.scripted import ScriptedLLM
from chat.providers.select import build_llm, describe_llm

from fake_ollama import FakeOllama, free_port

MODEL = "qwen2.5:7b-instruct"


@pytest.fixture
def base(settings, tmp_path):
    return settings.model_copy(update={
        "ollama_model": MODEL, "ollama_connect_timeout": 1.0, "model_dir": tmp_path / "models",
    })


def _pretend_installed(settings) -> None:
    """A file with a valid verification marker: build_embedded_llm does not load weights until the first call."""
    path = model_files.model_path(settings.model_dir)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"GGUF")
    model_files._write_marker(path)


def _auto(settings, url: str):
    return build_llm(settings.model_copy(update={"llm_provider": "auto", "ollama_host": url}))


def test_auto_picks_ollama_when_it_has_the_model(base):
    _pretend_installed(base)
    with FakeOllama([MODEL]) as fake:
        llm = _auto(base, fake.url)
    assert isinstance(llm, OllamaLLM) and llm.model == MODEL and llm.base_url == fake.url
    assert describe_llm(llm) == f"ollama {MODEL} at {fake.url} (context {base.llm_context_window})"


def test_auto_falls_back_to_embedded_when_the_model_is_not_pulled(base):
    _pretend_installed(base)
    with FakeOllama(["llama3:8b"]) as fake:
        llm = _auto(base, fake.url)
    assert isinstance(llm, EmbeddedLLM)
    assert llm.context_window == base.llm_context_window and llm.max_tokens == base.llm_max_tokens
    assert describe_llm(llm).startswith("embedded Qwen2.5-Coder-1.5B-Instruct Q4_K_M via llama.cpp")


def test_auto_without_the_model_anywhere_says_what_to_do(base):
    with FakeOllama(["llama3:8b"]) as fake:
        with pytest.raises(LLMUnavailableError) as err:
            _auto(base, fake.url)
    message = str(err.value)
    assert f"`ollama pull {MODEL}`" in message and "`scholar models install`" in message
    assert "is not pulled" in message


def test_auto_with_ollama_absent_uses_embedded_or_explains(base):
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(LLMUnavailableError, match=r"not running.*Start Ollama.*scholar models install"):
        _auto(base, url)
    _pretend_installed(base)
    assert isinstance(_auto(base, url), EmbeddedLLM)


def test_auto_with_a_hung_ollama_falls_back_within_seconds(base):
    _pretend_installed(base)
    with FakeOllama([MODEL]) as fake:
        fake.hang = True
        started = time.monotonic()
        assert isinstance(_auto(base, fake.url), EmbeddedLLM)
        assert time.monotonic() - started < 4


def test_explicit_ollama_does_not_fall_back(base):
    _pretend_installed(base)
    with FakeOllama(["llama3:8b"]) as fake:
        settings = base.model_copy(update={"llm_provider": "ollama", "ollama_host": fake.url})
        with pytest.raises(LLMUnavailableError, match=rf"ollama pull {MODEL}.*llama3:8b"):
            build_llm(settings)
    settings = base.model_copy(update={"llm_provider": "ollama", "ollama_host": f"127.0.0.1:{free_port()}"})
    with pytest.raises(LLMUnavailableError, match="Ollama is not usable"):
        build_llm(settings)


def test_explicit_embedded_requires_the_install(base):
    with pytest.raises(LLMUnavailableError, match="scholar models install"):
        build_llm(base.model_copy(update={"llm_provider": "embedded"}))


def test_scripted_provider_is_the_rule_based_llm(base):
    llm = build_llm(base.model_copy(update={"llm_provider": "scripted"}))
    assert isinstance(llm, ScriptedLLM) and llm.model_name == "rule-based"
    assert describe_llm(llm) == "scripted (rule-based, no model)"
