"""Which LLM answers: settings.llm_provider, and for `auto` the first that can actually run here."""

from __future__ import annotations

import logging
from typing import Any

from llama_index.core.llms import LLM

from chat.errors import LLMUnavailableError
from chat.providers.embedded import EmbeddedLLM, build_embedded_llm, embedded_installed
from chat.providers.ollama import OllamaLLM, build_ollama_llm, probe_ollama
from chat.providers.rule_based import rule_based_reply
from chat.providers.scripted import ScriptedLLM
from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)


def build_llm(settings: ScholarSettings) -> LLM:
    provider = settings.llm_provider
    if provider == "scripted":
        return ScriptedLLM(rule_based_reply, model_name="rule-based", context_window=settings.llm_context_window,
                           max_tokens=settings.llm_max_tokens)
    if provider == "embedded":
        return build_embedded_llm(settings)
    model = settings.ollama_model
    status = probe_ollama(settings)
    if provider == "ollama":
        if not status.reachable:
            raise LLMUnavailableError(
                f"Ollama is not usable: {status.error}. Start it (`ollama serve`, or set OLLAMA_HOST) and "
                f"`ollama pull {model}`, or use the embedded model: `scholar models install` and "
                "SCHOLAR_LLM_PROVIDER=embedded."
            )
        if not status.model_available:
            raise LLMUnavailableError(
                f"Ollama is running but does not have {model}: run `ollama pull {model}` "
                f"(it has: {', '.join(status.models) or 'no models'})."
            )
        return build_ollama_llm(settings)
    if provider != "auto":
        raise LLMUnavailableError(f"unknown SCHOLAR_LLM_PROVIDER {provider!r}: use auto, ollama, embedded or scripted")
    if status.reachable and status.model_available:
        return build_ollama_llm(settings)
    if embedded_installed(settings):
        log.info("using the embedded model (%s)", status.error)
        return build_embedded_llm(settings)
    raise LLMUnavailableError(
        f"No language model is available: {status.error}, and the embedded model is not installed. "
        f"Start Ollama and `ollama pull {model}`, or run `scholar models install`."
    )


def describe_llm(llm: LLM) -> str:
    """One line for health and status output: provider, model, where it runs."""
    if isinstance(llm, OllamaLLM):
        return f"ollama {llm.model} at {llm.base_url} (context {llm.context_window})"
    if isinstance(llm, EmbeddedLLM):
        return (f"embedded {llm.metadata.model_name} via llama.cpp (context {llm.context_window}, "
                f"{llm.n_threads} threads)")
    if isinstance(llm, ScriptedLLM):
        return f"scripted ({llm.model_name}, no model)"
    name = getattr(llm.metadata, "model_name", "") or ""
    return f"{type(llm).__name__} {name}".strip()


def probe_providers(settings: ScholarSettings) -> dict[str, Any]:
    """Which LLM a first query would get, without building one: Ollama's tags and the embedded model's marker."""
    status = probe_ollama(settings)
    return {
        "ollama": {"reachable": status.reachable, "model": settings.ollama_model,
                   "model_available": status.model_available, "error": status.error},
        "embedded_installed": embedded_installed(settings),
    }
