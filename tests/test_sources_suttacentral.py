"""SuttaCentral parsing: range files, Dhammapada verses, peyyāla gaps, chunk fields, stats and canonical IDs."""

import json
from dataclasses import fields

import pytest

from indexing.chunking import chunk_document
from indexing.models import Chunk
from indexing.pipeline import Indexes, ingest
from indexing.sources.router import content_hash
from indexing.sources.suttacentral import find_tree_root, parse_file
from indexing.vocabulary import segment_key, uid_to_sutta_id

from corpus import translation_file


def test_range_file_yields_one_document_per_sutta(mini_corpus):
    docs = parse_file(translation_file(mini_corpus, "sutta/an/an1/an1.1-10"))
    assert [d.sutta_id for d in docs] == [f"AN 1.{n}" for n in range(1, 11)]
    assert [d.doc_id for d in docs] == [f"an1.{n}" for n in range(1, 11)]
    assert all(d.collection == "AN" and d.group == 1 for d in docs)
    assert "smell" in docs[2].units[0].text and docs[2].units[0].ref == "an1.3:1.1"
    assert docs[2].units[0].pali.startswith("Nāhaṁ")


def test_dhammapada_chapter_yields_one_document_per_verse(mini_corpus):
    docs = parse_file(translation_file(mini_corpus, "sutta/kn/dhp/dhp1-4"))
    assert [d.sutta_id for d in docs] == ["Dhp 1", "Dhp 2", "Dhp 3", "Dhp 4"]
    assert all(d.book == "Dhp" and d.collection == "KN" for d in docs)
    assert docs[0].title == "Dhammapada, Pairs"
    chunks = chunk_document(docs[3])
    assert len(chunks) == 1 and chunks[0].chunk_type == "verse"
    assert chunks[0].text.splitlines() == ["For never is hatred laid to rest by hate,", "it's laid to rest by love:",
                                           "an ancient teaching."]
    assert (chunks[0].segment_start, chunks[0].segment_end) == ("dhp4:1", "dhp4:3")


def test_titles_names_and_blurbs(mini_corpus):
    mn10 = parse_file(translation_file(mini_corpus, "sutta/mn/mn10"))[0]
    assert (mn10.sutta_id, mn10.title, mn10.title_pali) == ("MN 10", "Mindfulness Meditation", "Satipaṭṭhānasutta")
    assert mn10.blurb.startswith("The four kinds")
    sn = parse_file(translation_file(mini_corpus, "sutta/sn/sn56/sn56.11"))[0]
    assert (sn.sutta_id, sn.title, sn.group) == ("SN 56.11", "Rolling Forth the Wheel of Dhamma", 56)


def test_empty_segments_are_skipped_but_ranges_span_them(mini_corpus):
    doc = parse_file(translation_file(mini_corpus, "sutta/mn/mn10"))[0]
    refs = [u.ref for u in doc.units]
    assert "mn10:4.3" not in refs and "mn10:4.2" in refs and "mn10:4.4" in refs
    key = segment_key
    spanning = [c for c in chunk_document(doc) if key(c.segment_start) <= key("mn10:4.3") <= key(c.segment_end)]
    assert len(spanning) == 1
    assert key(spanning[0].segment_start) <= key("mn10:4.2") and key("mn10:4.4") <= key(spanning[0].segment_end)


def test_chunks_carry_every_field_and_contiguous_indexes(mini_corpus):
    doc = parse_file(translation_file(mini_corpus, "sutta/mn/mn10"))[0]
    chunks = chunk_document(doc, 700, 1100)
    assert len(chunks) >= 3
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert (c.doc_id, c.sutta_id, c.title, c.collection, c.book) == (
            "mn10", "MN 10", "Mindfulness Meditation", "MN", "MN")
        assert c.segment_start.startswith("mn10:") and c.segment_end.startswith("mn10:")
        assert c.chunk_type == "prose" and c.source_path.endswith("mn10_translation-en-sujato.json")
        assert 0 <= c.char_start < c.char_end and c.char_end - c.char_start == len(c.text)
        assert c.pali
        assert len(c.text) <= 1100
    assert "kāye kāyānupassī" in chunks[-1].pali
    assert chunks[1].char_start == chunks[0].char_end + 1
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    assert set(chunks[0].metadata()) >= {f.name for f in fields(Chunk)} - {"text", "pali", "page"}


def test_stats_json_has_the_contract_keys(settings, mini_corpus, fake_embed, monkeypatch, capsys):
    from chat.cli import main

    ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    monkeypatch.setenv("SCHOLAR_INDEX_DIR", str(settings.index_dir))
    assert main(["stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["documents"] == 17
    assert stats["chunks"] == Indexes(settings).docstore.chunk_count() > 0
    assert stats["suttas_by_collection"] == {"AN": 10, "Dhp": 4, "MN": 2, "SN": 1}


def _corpus_uids(tree):
    uids = set()
    for path in (tree / "translation").rglob("*_translation-en-sujato.json"):
        if "/name/" not in path.as_posix():
            uids |= {seg.partition(":")[0] for seg in json.loads(path.read_text())}
    return uids


def test_every_sutta_id_in_the_corpus_is_findable_by_canonical_form(settings, mini_corpus, fake_embed):
    ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    store = Indexes(settings).docstore
    uids = _corpus_uids(mini_corpus)
    assert len(uids) == 17
    for uid in sorted(uids):
        canonical = uid_to_sutta_id(uid)
        record = store.document_by_sutta_id(canonical)
        assert record is not None and record.doc_id == uid, canonical
        assert store.document_by_sutta_id(canonical.lower()) is not None
        assert store.chunks_of(uid), canonical


@pytest.mark.parametrize("uid,canonical", [("an1.10", "AN 1.10"), ("dhp3", "Dhp 3"), ("sn56.11", "SN 56.11")])
def test_chunk_metadata_carries_the_canonical_id(settings, mini_corpus, fake_embed, uid, canonical):
    ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    indexes = Indexes(settings)
    got = indexes.chroma.collection.get(where={"sutta_id": canonical}, include=["metadatas"])
    assert got["ids"] and all(m["doc_id"] == uid for m in got["metadatas"])


def test_tree_roots_found_with_a_memo_are_the_same(mini_corpus, tmp_path):
    outside = tmp_path / "elsewhere" / "notes.md"
    outside.parent.mkdir()
    outside.write_text("# Notes", encoding="utf-8")
    files = [*sorted(p for p in mini_corpus.rglob("*.json")), outside, *sorted(p for p in mini_corpus.rglob("*.json"))]
    memo: dict = {}
    assert [find_tree_root(f, memo) for f in files] == [find_tree_root(f) for f in files]
    assert memo and find_tree_root(outside, memo) is None
    assert all(content_hash(f, memo) == content_hash(f) for f in files)
