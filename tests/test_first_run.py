"""Serving before the vectors are in: an ingest's lexical phase alone is enough to search and answer (BM25), a
partial semantic index is searched over what it holds and picked up as it grows, a stop mid-embedding (an
exception, or kill -9 of the process) resumes to the index a clean run makes, and health says how far it is."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from chat.api.routes import create_app
from chat.providers.scripted import ScriptedLLM
from chat.runtime import Runtime
from indexing import pipeline, semantic
from indexing.cards import open_card_vectors
from indexing.progress import read_progress
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.retriever import search

from corpus import NICKNAMES, write_tools_corpus
from fakes import FakeEmbedding, SimulatedKill

REPO = Path(__file__).resolve().parents[1]
QUESTION = "What should one do when bandits sever you limb from limb with a saw?"


@pytest.fixture
def small_groups(monkeypatch):
    monkeypatch.setattr(semantic, "EMBED_GROUP_CHUNKS", 4)


@pytest.fixture
def first_run(tmp_path):
    """Settings of a fresh index over the tools corpus (nothing ingested yet)."""
    tree = write_tools_corpus(tmp_path / "corpus")
    nicknames = tmp_path / "nicknames.csv"
    nicknames.write_text(NICKNAMES, encoding="utf-8")
    yield ScholarSettings(_env_file=None, index_dir=tmp_path / "index", corpus_paths=[tree], nicknames_csv=nicknames,
                          chroma_url=None, semantic_refresh_s=0)
    Library.forget()


def _embed(**kw) -> FakeEmbedding:
    return FakeEmbedding(model_name="fake-hash-64", embed_batch_size=2, **kw)


def _ingest(settings, **kw):
    return pipeline.ingest(settings, embed_model=kw.pop("embed_model", None) or _embed(), progress=False, **kw)


def _vectors(settings) -> tuple[dict, dict]:
    """Every stored vector, of passages and of cards, by ID."""
    indexes = pipeline.Indexes(settings)
    try:
        cards = open_card_vectors(settings)
        return (indexes.chroma.vectors(sorted(indexes.chroma.ids())),
                cards.vectors(sorted(cards.ids())))
    finally:
        indexes.docstore.close()


def _interrupted(settings, groups: int):
    with pytest.raises(SimulatedKill):
        _ingest(settings, embed_model=_embed(fail_after=groups * 2))  # two batches a group of 4


# ---- answering from the lexical side -----------------------------------------------------------------------------
def test_the_lexical_phase_alone_embeds_nothing_and_search_answers_by_keywords(first_run):
    report = _ingest(first_run, embed_model=_embed(fail_after=0), semantic=False)  # any embedding would raise
    assert report.chunks_written > 0 and report.chunks_embedded == 0
    record = read_progress(first_run.index_dir)  # what the chat says until an ingest embeds
    assert (record.chunks_done, record.cards_done, record.running) == (0, 0, False)
    assert record.chunks_total == report.chunks_written and record.cards_total > 0
    assert record.describe().startswith("semantic search: 0% (paused")
    library = Library.open(first_run, embed_model=_embed())
    assert library.dense_ready and library.chroma.count() == 0

    result = search(library, QUESTION)
    assert result.search_types_used == ["bm25"] and result.dense_coverage is None
    assert result.passages[0].sutta_id == "MN 21"
    assert any(n.startswith("the semantic index is still being built") for n in result.notes)
    assert result.answered_by() == "by keywords (BM25)"


async def test_the_chat_pipeline_answers_while_the_dense_index_is_empty_then_partial(first_run, small_groups):
    from chat.pipeline.scholar import Scholar

    reply = "Thought: ok\nAnswer: One should meditate spreading a heart full of love to that person [MN 21:20.2]."
    _ingest(first_run, semantic=False)
    library = Library.open(first_run, embed_model=_embed())
    empty = await Scholar(first_run.model_copy(update={"memory_db": first_run.index_dir / "m.sqlite"}), library,
                          ScriptedLLM([reply, "What is love?"])).aask(QUESTION)
    assert "MN 21" in {c.sutta_id for c in empty.citations}
    assert "bm25" in empty.search_types_used and "dense" not in empty.search_types_used
    step = next(s for s in empty.trace if s.tool == "search_passages")
    assert "by keywords (BM25)" in step.output_summary

    _interrupted(first_run, groups=2)
    partial = await Scholar(first_run.model_copy(update={"memory_db": first_run.index_dir / "m.sqlite"}), library,
                            ScriptedLLM([reply, "What is love?"])).aask(QUESTION)
    assert "MN 21" in {c.sutta_id for c in partial.citations}
    assert {"bm25", "dense"} <= set(partial.search_types_used)
    step = next(s for s in partial.trace if s.tool == "search_passages")
    assert "BM25 and dense" in step.output_summary and "% of passages embedded so far" in step.output_summary


def test_a_serving_library_searches_new_vectors_without_a_restart(first_run, small_groups):
    _interrupted(first_run, groups=1)
    library = Library.open(first_run, embed_model=_embed())
    result = search(library, QUESTION)
    assert "dense" in result.search_types_used and 0 < result.dense_coverage < 1
    ids, _, _ = library.matrix()
    assert len(ids) == 4  # one group of passages stored

    _ingest(first_run)  # another process, as far as the library knows: it sees only the stores and the record
    result = search(library, QUESTION)
    assert result.dense_coverage == 1.0 and not any("semantic index" in n for n in result.notes)
    ids, _, _ = library.matrix()
    assert len(ids) == library.docstore.chunk_count()
    assert len(library.cards.ids) == len(library.cards.cards)  # the card vectors were read again too


# ---- stopping and resuming ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("groups", [0, 1, 3])
def test_stopped_mid_embedding_then_resumed_equals_a_clean_run(first_run, small_groups, index_state, groups):
    _interrupted(first_run, groups)
    stopped = read_progress(first_run.index_dir)
    assert stopped.chunks_done == 4 * groups < stopped.chunks_total
    resumed = _ingest(first_run)
    assert resumed.chunks_embedded == stopped.chunks_total - 4 * groups  # only what was missing

    clean = first_run.model_copy(update={"index_dir": first_run.index_dir.with_name("clean")})
    _ingest(clean)
    assert index_state(first_run) == index_state(clean)
    assert _vectors(first_run) == _vectors(clean)
    assert read_progress(first_run.index_dir).complete


def test_killed_with_sigkill_mid_embedding_resumes_to_a_clean_index(first_run, tmp_path):
    script = textwrap.dedent(f"""
        import sys, time
        sys.path[:0] = [{str(REPO)!r}, {str(REPO / 'tests')!r}]
        from fakes import FakeEmbedding
        from indexing import pipeline, semantic
        from indexing.settings import ScholarSettings

        class Slow(FakeEmbedding):
            def _get_text_embeddings(self, texts):
                time.sleep(0.2)
                return super()._get_text_embeddings(texts)

        semantic.EMBED_GROUP_CHUNKS = 4
        settings = ScholarSettings.model_validate_json(sys.argv[1])
        pipeline.ingest(settings, embed_model=Slow(model_name="fake-hash-64", embed_batch_size=2), progress=False)
    """)
    child = subprocess.Popen([sys.executable, "-c", script, first_run.model_dump_json()],
                             env={**os.environ, "ANONYMIZED_TELEMETRY": "False"})
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            record = read_progress(first_run.index_dir)
            if record is not None and record.chunks_done >= 8:
                break
            time.sleep(0.05)
        assert child.poll() is None, "the child finished before it could be killed"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
    record = read_progress(first_run.index_dir)
    assert 8 <= record.chunks_done < record.chunks_total and not record.running
    assert "paused" in record.describe()

    resumed = _ingest(first_run, embed_model=_embed())
    assert 0 < resumed.chunks_embedded <= record.chunks_total - record.chunks_done
    clean = first_run.model_copy(update={"index_dir": tmp_path / "clean"})
    _ingest(clean)
    assert _vectors(first_run) == _vectors(clean)


def test_a_no_op_reingest_builds_no_model_and_embeds_nothing(first_run, monkeypatch):
    _ingest(first_run)

    def no_model(*args, **kwargs):
        raise AssertionError("a no-op re-ingest must not build the embedding model")

    monkeypatch.setattr(pipeline, "build_embed_model", no_model)
    again = pipeline.ingest(first_run, progress=False)
    assert (again.files_ingested, again.chunks_embedded, again.cards_embedded) == (0, 0, 0)
    assert read_progress(first_run.index_dir).complete


# ---- saying how far it is -----------------------------------------------------------------------------------------
def test_health_says_how_far_the_semantic_index_is(first_run, small_groups):
    _interrupted(first_run, groups=1)
    library = Library.open(first_run, embed_model=_embed())
    client = TestClient(create_app(Runtime(first_run, library=library)))
    body = client.get("/api/health").json()
    semantic_state = body["index"]["semantic"]
    assert body["status"] == "degraded" and not semantic_state["complete"]
    assert 0 < semantic_state["percent"] < 100 and semantic_state["summary"].startswith("semantic search: ")
    assert "pid" not in semantic_state

    keyed = first_run.model_copy(update={"api_keys": ["s3cret"]})
    public = TestClient(create_app(Runtime(keyed, library=library))).get("/api/health").json()
    assert set(public["index"]) == {"loaded", "semantic"} and public["index"]["semantic"] == semantic_state

    _ingest(first_run)
    body = client.get("/api/health").json()
    assert body["index"]["semantic"]["complete"] and body["index"]["semantic"]["summary"] == "semantic search: ready"
    assert json.dumps(body).count("semantic search") == 1


def test_restarting_before_the_vectors_are_done_does_not_rebuild_the_cards(first_run, small_groups, monkeypatch):
    from indexing import cards

    _interrupted(first_run, groups=1)

    def no_build(*args, **kwargs):
        raise AssertionError("the cards' text is up to date: a lexical phase with nothing changed must not rebuild it")

    monkeypatch.setattr(cards, "build_cards", no_build)
    again = _ingest(first_run, semantic=False)
    assert again.files_ingested == 0 and (first_run.index_dir / "cards" / "cards.json").exists()


# ---- `scholar chat --ingest` ---------------------------------------------------------------------------------------
def test_the_server_starts_after_the_lexical_phase_with_the_vectors_left_to_a_child(first_run, monkeypatch):
    from chat import first_run as launcher

    started = []

    class Child:
        pid = 4242

        def __init__(self, cmd, **kwargs):
            # the lexical index is complete before the embedding process is even started
            assert (first_run.index_dir / "docstore.sqlite").exists() and (first_run.index_dir / "bm25").exists()
            started.append((cmd, kwargs))

        def poll(self):
            return 0

    monkeypatch.setattr(launcher.subprocess, "Popen", Child)
    monkeypatch.setattr(pipeline, "build_embed_model", lambda *a, **k: pytest.fail("the lexical phase embeds nothing"))
    child = launcher.lexical_then_background(first_run)
    ((cmd, kwargs),) = started
    assert cmd[-3:] == ["ingest", "--wait", "--no-progress"] and child is not None
    assert kwargs["stdout"].name == str(first_run.index_dir / "ingest.log")
    assert Library.open(first_run, embed_model=_embed()).docstore.chunk_count() > 0
    launcher.stop(child)  # already finished: nothing to do


def test_the_url_is_printed_once_the_server_accepts_connections(capsys):
    import socket

    from chat.first_run import announce_when_serving

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        port = server.getsockname()[1]
        thread = announce_when_serving("127.0.0.1", port, "Canon Scholar")
        time.sleep(0.5)
        assert capsys.readouterr().out == ""  # bound but not listening: not serving yet
        server.listen()
        thread.join(timeout=10)
    assert capsys.readouterr().out == f"Canon Scholar is ready: http://localhost:{port}\n"
