"""A run killed anywhere, then re-run, must leave exactly the chunks of a clean run: nothing duplicated, nothing
missing, in all three stores. The kill is simulated in-process by raising at the chosen point."""

import json

import pytest

from indexing import pipeline, semantic
from indexing.stores.docstore import DocStore

from corpus import translation_file
from fakes import FakeEmbedding, SimulatedKill


@pytest.fixture
def small_groups(monkeypatch):
    # several embedding groups even on the mini corpus, so a kill can land between groups
    monkeypatch.setattr(pipeline, "WRITE_GROUP_CHUNKS", 4)
    monkeypatch.setattr(semantic, "EMBED_GROUP_CHUNKS", 4)


def _clean(settings, corpus, index_state):
    clean = settings.model_copy(update={"index_dir": settings.index_dir.with_name("clean-index")})
    pipeline.ingest(clean, [corpus], embed_model=FakeEmbedding(embed_batch_size=8), progress=False)
    return index_state(clean)


def _assert_same_as_clean(state, clean):
    assert state["chunks"] == clean["chunks"]
    assert state["chroma"] == clean["chroma"] == sorted(clean["chunks"])
    assert state["bm25"] == clean["bm25"]  # a list: a duplicate would show
    assert state["documents"] == clean["documents"]
    assert state["segments"] == clean["segments"]
    assert state["manifest"] == clean["manifest"]


def _rerun(settings, corpus):
    return pipeline.ingest(settings, [corpus], embed_model=FakeEmbedding(embed_batch_size=8), progress=False)


@pytest.mark.parametrize("fail_after", [0, 1, 2, 3, 4])
def test_killed_while_embedding_then_rerun_equals_clean_run(
    settings, mini_corpus, small_groups, index_state, fail_after
):
    with pytest.raises(SimulatedKill):
        pipeline.ingest(settings, [mini_corpus], embed_model=FakeEmbedding(embed_batch_size=8, fail_after=fail_after),
                        progress=False)
    _rerun(settings, mini_corpus)
    _assert_same_as_clean(index_state(settings), _clean(settings, mini_corpus, index_state))


@pytest.mark.parametrize("kill_on_call", [1, 2])
def test_killed_between_chroma_and_docstore_writes(
    settings, mini_corpus, small_groups, fake_embed, index_state, monkeypatch, kill_on_call
):
    real = DocStore.replace_sources
    calls = {"n": 0}

    def dying(self, items):
        calls["n"] += 1
        if calls["n"] == kill_on_call:
            raise SimulatedKill("killed after the Chroma upsert, before the docstore commit")
        return real(self, items)

    monkeypatch.setattr(DocStore, "replace_sources", dying)
    with pytest.raises(SimulatedKill):
        pipeline.ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    monkeypatch.setattr(DocStore, "replace_sources", real)

    _rerun(settings, mini_corpus)
    _assert_same_as_clean(index_state(settings), _clean(settings, mini_corpus, index_state))


def test_killed_before_bm25_rebuild(settings, mini_corpus, fake_embed, index_state, monkeypatch):
    pipeline.ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    translation_file(mini_corpus, "sutta/mn/mn21").unlink()  # so the stale BM25 would still hold MN 21

    def dying(indexes, report):
        raise SimulatedKill("killed before BM25 was rebuilt")

    real = pipeline._rebuild_bm25
    monkeypatch.setattr(pipeline, "_rebuild_bm25", dying)
    with pytest.raises(SimulatedKill):
        pipeline.ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    monkeypatch.setattr(pipeline, "_rebuild_bm25", real)

    _rerun(settings, mini_corpus)  # nothing changed on disk since the killed run: only the flag says "finish me"
    _assert_same_as_clean(index_state(settings), _clean(settings, mini_corpus, index_state))


def test_killed_while_applying_changes_to_an_existing_index(settings, mini_corpus, small_groups, index_state):
    pipeline.ingest(settings, [mini_corpus], embed_model=FakeEmbedding(embed_batch_size=8), progress=False)
    mn10 = translation_file(mini_corpus, "sutta/mn/mn10")
    data = json.loads(mn10.read_text())
    data["mn10:3.1"] = "An edited opening of the section on the body. "
    mn10.write_text(json.dumps(data, ensure_ascii=False))
    translation_file(mini_corpus, "sutta/mn/mn21").unlink()
    an = translation_file(mini_corpus, "sutta/an/an1/an1.1-10")
    data = json.loads(an.read_text())
    data["an1.3:1.1"] = "Mendicants, an edited sutta about smell. "
    an.write_text(json.dumps(data, ensure_ascii=False))

    # unchanged chunks keep their vectors, so each changed file is one embedding batch: die on the second
    with pytest.raises(SimulatedKill):
        pipeline.ingest(settings, [mini_corpus], embed_model=FakeEmbedding(embed_batch_size=8, fail_after=1),
                        progress=False)
    _rerun(settings, mini_corpus)
    _assert_same_as_clean(index_state(settings), _clean(settings, mini_corpus, index_state))


def test_vectors_lost_from_chroma_are_restored(settings, mini_corpus, fake_embed, index_state):
    pipeline.ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    indexes = pipeline.Indexes(settings)
    victim = sorted(indexes.docstore.all_chunk_ids())[:3]
    indexes.chroma.delete_ids(victim)
    _rerun(settings, mini_corpus)
    _assert_same_as_clean(index_state(settings), _clean(settings, mini_corpus, index_state))
