import json

from indexing.pipeline import Indexes, ingest

from corpus import translation_file


def _ingest(settings, corpus, embed):
    return ingest(settings, [corpus], embed_model=embed, progress=False)


def test_second_run_on_unchanged_corpus_embeds_nothing_and_changes_nothing(settings, mini_corpus, fake_embed,
                                                                            index_state):
    first = _ingest(settings, mini_corpus, fake_embed)
    assert first.files_ingested == 5 and first.chunks_written == fake_embed.texts_embedded > 0
    before = index_state(settings)
    bm25_mtime = (settings.index_dir / "bm25" / "ids.json").stat().st_mtime_ns

    fake_embed.reset_counts()
    second = _ingest(settings, mini_corpus, fake_embed)

    assert fake_embed.texts_embedded == 0 and fake_embed.batch_calls == 0
    assert (second.files_unchanged, second.files_ingested, second.chunks_written, second.chunks_removed) == (5, 0, 0, 0)
    assert not second.bm25_rebuilt
    assert (settings.index_dir / "bm25" / "ids.json").stat().st_mtime_ns == bm25_mtime
    assert index_state(settings) == before


def test_changed_file_replaces_its_chunks_everywhere(settings, mini_corpus, fake_embed, index_state):
    _ingest(settings, mini_corpus, fake_embed)
    before = index_state(settings)
    mn10 = translation_file(mini_corpus, "sutta/mn/mn10")
    old_mn10 = {cid for cid, c in before["chunks"].items() if c["doc_id"] == "mn10"}
    chunks = before["chunks"]
    edited = next(cid for cid in old_mn10 if chunks[cid]["segment_start"] <= "mn10:5.2" <= chunks[cid]["segment_end"])

    data = json.loads(mn10.read_text())
    data["mn10:5.2"] = "A completely rewritten sentence about the impermanence of the mind. "
    mn10.write_text(json.dumps(data, ensure_ascii=False))
    fake_embed.reset_counts()
    report = _ingest(settings, mini_corpus, fake_embed)
    after = index_state(settings)

    new_mn10 = {cid for cid, c in after["chunks"].items() if c["doc_id"] == "mn10"}
    assert report.files_ingested == 1 and report.files_unchanged == 4
    assert fake_embed.texts_embedded == len(new_mn10)  # only the changed file was embedded
    assert edited not in after["chunks"] and edited not in after["chroma"] and edited not in after["bm25"]
    assert any("completely rewritten" in after["chunks"][cid]["text"] for cid in new_mn10)
    # the untouched chunks of the changed file and every other file's chunks keep their IDs
    assert old_mn10 - {edited} <= new_mn10
    others = {cid for cid, c in before["chunks"].items() if c["doc_id"] != "mn10"}
    assert others <= set(after["chunks"])
    assert set(after["chunks"]) == set(after["chroma"]) == set(after["bm25"])


def test_shrunk_file_leaves_no_stale_chunks(settings, mini_corpus, fake_embed, index_state):
    _ingest(settings, mini_corpus, fake_embed)
    mn10 = translation_file(mini_corpus, "sutta/mn/mn10")
    data = {k: v for k, v in json.loads(mn10.read_text()).items() if not k.startswith(("mn10:5.", "mn10:6."))}
    mn10.write_text(json.dumps(data, ensure_ascii=False))
    _ingest(settings, mini_corpus, fake_embed)
    after = index_state(settings)
    mn10_chunks = [c for c in after["chunks"].values() if c["doc_id"] == "mn10"]
    assert mn10_chunks and all(not c["segment_end"].startswith(("mn10:5.", "mn10:6.")) for c in mn10_chunks)
    assert sorted(c["chunk_index"] for c in mn10_chunks) == list(range(len(mn10_chunks)))
    assert set(after["chunks"]) == set(after["chroma"]) == set(after["bm25"])


def test_deleted_file_chunks_are_removed(settings, mini_corpus, fake_embed, index_state):
    _ingest(settings, mini_corpus, fake_embed)
    before = index_state(settings)
    gone = {cid for cid, c in before["chunks"].items() if c["doc_id"] == "mn21"}
    assert gone

    translation_file(mini_corpus, "sutta/mn/mn21").unlink()
    report = _ingest(settings, mini_corpus, fake_embed)
    after = index_state(settings)

    assert report.files_removed == 1 and report.chunks_removed == len(gone)
    for store in ("chroma", "bm25"):
        assert not gone & set(after[store])
    assert not gone & set(after["chunks"])
    assert "mn21" not in after["documents"]
    assert "mn21_translation-en-sujato.json" not in after["manifest"]
    assert set(after["chunks"]) == set(before["chunks"]) - gone


def test_reingest_from_scratch_yields_identical_chunk_ids(settings, mini_corpus, fake_embed, index_state):
    _ingest(settings, mini_corpus, fake_embed)
    first = index_state(settings)
    # a second, fresh index (removing the first would leave chromadb's per-path client cache pointing at it)
    fresh = settings.model_copy(update={"index_dir": settings.index_dir.with_name("index-2")})
    _ingest(fresh, mini_corpus, fake_embed)
    second = index_state(fresh)
    assert first["chunks"] and first["chunks"] == second["chunks"]
    assert first["chroma"] == second["chroma"] == second["bm25"] == sorted(second["chunks"])


def test_stores_agree_after_ingest(settings, mini_corpus, fake_embed, index_state):
    _ingest(settings, mini_corpus, fake_embed)
    state = index_state(settings)
    assert sorted(state["chunks"]) == state["chroma"] == state["bm25"]
    indexes = Indexes(settings)
    assert indexes.docstore.info("ingest_in_progress") is False
