"""What holds readers' conversations and the server's secrets is readable by its owner only (mode 0600)."""

from __future__ import annotations

import asyncio
import stat

from chat.runtime import Runtime
from chat.ui.auth import ensure_auth_secret
from chat.ui.history import HistoryStore, build_data_layer

from helpers_tools import open_library


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_memory_history_panels_and_secrets_are_private(tmp_path, tmp_path_factory, monkeypatch):
    library = open_library(tmp_path_factory.getbasetemp() / "agent-index")
    settings = library.settings.model_copy(update={"memory_db": tmp_path / "var" / "memory.sqlite",
                                                   "llm_provider": "scripted"})
    runtime = Runtime(settings, library=library)
    scholar = runtime.scholar()
    asyncio.run(scholar.aask("What does the Fire Sermon say is burning?", session_id="s1"))
    assert _mode(settings.resolved_memory_db) == 0o600

    db = tmp_path / "chat" / "history.sqlite"
    _, storage = build_data_layer(HistoryStore.sqlite(db))
    url = asyncio.run(storage.upload_file("owner/el/SN 35.28:1.3", "a panel", mime="text/plain"))["url"]
    stored = storage.root / url.rsplit("/", 1)[1]
    assert _mode(db) == 0o600 and _mode(stored) == 0o600 and _mode(stored.with_suffix(".mime")) == 0o600
    assert _mode(storage.root) == 0o700

    monkeypatch.delenv("CHAINLIT_AUTH_SECRET", raising=False)
    ensure_auth_secret(tmp_path / "chat" / "auth-secret")
    assert _mode(tmp_path / "chat" / "auth-secret") == 0o600


def test_a_world_readable_memory_file_from_before_is_tightened(tmp_path, tmp_path_factory):
    library = open_library(tmp_path_factory.getbasetemp() / "agent-index")
    old = tmp_path / "memory.sqlite"
    old.touch(mode=0o644)
    old.chmod(0o644)
    settings = library.settings.model_copy(update={"memory_db": old, "llm_provider": "scripted"})
    Runtime(settings, library=library).scholar()
    assert _mode(old) == 0o600


def test_secrets_are_private_from_their_first_byte_not_chmod_ed_after(tmp_path, monkeypatch):
    import os
    from pathlib import Path

    from chat.sessions import load_secret

    def no_chmod(*args, **kwargs):
        raise AssertionError("made private after it was written: readable by anyone in between")

    monkeypatch.setattr(os, "chmod", no_chmod)
    monkeypatch.setattr(Path, "chmod", no_chmod)
    monkeypatch.delenv("CHAINLIT_AUTH_SECRET", raising=False)
    old = os.umask(0)  # even under a umask that would leave a new file world-readable
    try:
        ensure_auth_secret(tmp_path / "chat" / "auth-secret")
        load_secret(tmp_path / "session-secret")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "chat" / "auth-secret") == 0o600 and _mode(tmp_path / "session-secret") == 0o600
