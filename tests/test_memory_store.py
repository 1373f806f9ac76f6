"""The conversation memory's database: its table made once however many first turns arrive together (#27 defect 1),
and a damaged or locked database told to the reader in one line that names it (#27 defect 4)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3

from chat.providers.rule_based import rule_based_reply
from chat.providers.scripted import ScriptedLLM

from scholar_helpers import scholar_for

QUESTION = "What does the Fire Sermon say is burning?"


def _scholar(base, memory_db):
    scholar, _ = scholar_for(base, [], memory_db=memory_db)
    scholar.llm = ScriptedLLM(rule_based_reply)  # any number of turns, each answered
    return scholar


async def test_twenty_first_turns_at_once_on_a_fresh_memory_database_all_succeed(base, tmp_path):
    scholar = _scholar(base, tmp_path / "fresh" / "memory.sqlite")
    answers = await asyncio.gather(*(scholar.aask(QUESTION, session_id=f"reader-{i}") for i in range(20)))
    assert [a.error for a in answers if a.status == "failed"] == []
    # and each session holds its own turn, once
    again = _scholar(base, tmp_path / "fresh" / "memory.sqlite")
    for i in (0, 7, 19):
        turns = await again._memory(f"reader-{i}").turns()
        assert [t.question for t in turns] == [QUESTION]


async def test_a_damaged_memory_file_is_one_line_naming_it_and_what_to_do(base, tmp_path, caplog):
    path = tmp_path / "memory.sqlite"
    path.write_bytes(b"this is not a database, just some bytes " * 100)
    scholar = _scholar(base, path)
    with caplog.at_level(logging.WARNING):
        answer = await scholar.aask(QUESTION, session_id="reader")
    assert answer.status == "failed"
    assert str(path) in answer.error and "move it aside" in answer.error
    assert "\n" not in answer.error and "SQL" not in answer.error and "sqlite3" not in answer.error
    assert not [r for r in caplog.records if r.exc_info], "an expected failure is logged without a traceback"


async def test_a_locked_memory_file_says_so(base, tmp_path, monkeypatch):
    import chat.database

    monkeypatch.setattr(chat.database, "SQLITE_BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "memory.sqlite"
    first = _scholar(base, path)
    await first.aask(QUESTION, session_id="reader")  # the table exists; now another program holds the write lock
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        answer = await _scholar(base, path).aask(QUESTION, session_id="reader")
    finally:
        holder.close()
    assert answer.status == "failed"
    assert answer.error.startswith(f"The conversation memory (the file {path}) is locked by another program")
