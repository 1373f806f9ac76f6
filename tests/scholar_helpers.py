"""A Scholar over the shared tiny tools index, driven by the scripted LLM (chat.providers.scripted) at the seam.

The scripted LLM replies with the given strings in order, records every prompt, and raises when the script runs
out, so a test sees exactly how many model calls a turn made.
"""

from __future__ import annotations

from pathlib import Path

from chat.providers.scripted import ScriptedLLM
from helpers_tools import open_library  # noqa: I001 - pytest puts tests/ on sys.path


def scholar_for(base: Path, replies: list[str], **overrides):
    from chat.pipeline.scholar import Scholar

    library = open_library(base)
    settings = library.settings.model_copy(update={"memory_db": base / "memory.sqlite", **overrides})
    llm = ScriptedLLM(list(replies))
    return Scholar(settings, library, llm), llm
