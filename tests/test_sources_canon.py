"""The whole canon: verse markup, a second translator, the Vinaya's deeper segments and names, baskets, the
parallels table, and an index built before these books existed catching up without re-embedding what it has."""

from __future__ import annotations

import json

import pytest

from indexing import pipeline
from indexing.chunking import chunk_document
from indexing.sources import suttacentral
from indexing.sources.parallels import parse_id, read_parallels
from indexing.sources.suttacentral import clean_text, parse_file
from indexing.stores.bm25_store import BM25Store
from indexing.text import tokenize

from fakes import FakeEmbedding


def _file(tree, rel, translator="sujato"):
    found = list(tree.rglob(f"{rel}_translation-en-{translator}.json"))
    assert len(found) == 1, rel
    return found[0]


def test_verse_markup_is_a_line_break_for_readers_and_gone_for_search(canon_corpus):
    doc = parse_file(_file(canon_corpus, "thag1.1"))[0]
    assert (doc.sutta_id, doc.title, doc.title_pali, doc.collection, doc.basket) == \
        ("Thag 1.1", "Subhūti", "Subhūtittheragāthā", "KN", "sutta")
    assert doc.units[0].text == "My little hut is roofed and pleasant,\nsheltered from the wind:"
    assert doc.units[2].text == "My mind is well settled and freed."  # <em> reduced to its word
    chunk = chunk_document(doc)[0]
    assert chunk.chunk_type == "verse" and "<" not in chunk.text + chunk.embedding_text()
    assert chunk.text.splitlines()[:3] == ["My little hut is roofed and pleasant,", "sheltered from the wind:",
                                           "rain as you please, god!"]
    assert "j" not in tokenize(chunk.embedding_text()) and "em" not in tokenize(chunk.embedding_text())
    assert clean_text("see <a href='https://suttacentral.net/x'>Kd 7:6.1.2</a> <i lang='pi'>kaṭhina</i> ") == \
        "see Kd 7:6.1.2 kaṭhina"


def test_a_second_translator_is_another_document_of_the_same_text(canon_corpus):
    sujato = parse_file(_file(canon_corpus, "thig1.1"))[0]
    soma = parse_file(_file(canon_corpus, "thig1.1", "soma"))[0]
    assert (sujato.doc_id, sujato.translator) == ("thig1.1", "sujato")
    assert (soma.doc_id, soma.sutta_id, soma.translator) == ("thig1.1@soma", "Thig 1.1", "soma")
    assert [u.ref for u in soma.units] == [u.ref for u in sujato.units]  # the same segments, rendered twice
    assert soma.units[0].pali == "Sukhaṁ supāhi therike,"  # Soma's file is paired with the same Pali root
    assert {c.translator for c in chunk_document(soma)} == {"soma"}


def test_vinaya_documents_use_display_ids_names_and_deeper_paragraphs(canon_corpus):
    doc = parse_file(_file(canon_corpus, "pli-tv-bu-vb-pj2", "brahmali"))[0]
    assert (doc.doc_id, doc.sutta_id, doc.book, doc.collection, doc.basket, doc.translator) == \
        ("pli-tv-bu-vb-pj2", "Bu Pj 2", "Bu Pj", "Vb", "vinaya", "brahmali")
    assert (doc.title, doc.title_pali) == ("Theft", "Adinnādāna")
    assert doc.blurb == "A monk who steals is pārājika."
    # `1.1.1`, `1.1.2` are one paragraph, `1.2.1` the next: the paragraph is all but the last number
    assert [u.boundary for u in doc.units] == [True, False, True, True]
    pm = parse_file(_file(canon_corpus, "pli-tv-bu-pm", "brahmali"))[0]
    assert (pm.sutta_id, pm.collection, pm.title) == ("Bu Pm", "Pm", "Monks’ Monastic Code")
    kd = parse_file(_file(canon_corpus, "pli-tv-kd1", "brahmali"))[0]
    assert (kd.sutta_id, kd.title, kd.units[-1].ref) == ("Kd 1", "Going Forth", "pli-tv-kd1:6.29.1")


def test_an_older_collected_file_does_not_repeat_texts_that_have_files_of_their_own(canon_corpus):
    docs = parse_file(_file(canon_corpus, "pli-tv-bu-vb-pj1-4", "brahmali"))
    assert [d.doc_id for d in docs] == ["pli-tv-bu-vb-pj1-4"]


def test_parallels_table_survives_the_source_quirks(canon_corpus):
    assert parse_id("~mn53#17-#8") == parse_id("~mn53#8-#17")
    assert (parse_id("~mn53#17-#8").section, parse_id("~mn53#17-#8").partial) == ("8-17", True)
    assert parse_id("sag##7.1").section == "7.1" and parse_id("mnd4#49-##52").section == "49-52"
    assert parse_id("~ea-2.41#t0881b18–#t0881b22").section == "t0881b18-t0881b22"
    assert parse_id("  Manusmṛti   2.121 ").uid == "Manusmṛti 2.121" and parse_id("~") is None
    groups = read_parallels(canon_corpus / "relationship" / "parallels.json")
    assert [kind for kind, _ in groups] == ["parallels", "parallels", "parallels", "mentions", "parallels", "parallels"]
    assert [r.uid for r in groups[0][1]] == ["mn10", "dn22", "ma98", "mn119", "ea12.1"]


def test_ingest_builds_baskets_translators_and_the_parallels_listing(settings, canon_corpus, fake_embed):
    report = pipeline.ingest(settings, [canon_corpus], embed_model=fake_embed, progress=False)
    assert report.parallels > 0 and not report.skipped
    indexes = pipeline.Indexes(settings)
    store = indexes.docstore
    counts = store.counts()
    assert counts["by_basket"]["vinaya"]["documents"] == 4  # Bu Pj 2, Bu Pj 1-4, Kd 1, Bu Pm
    assert counts["by_collection"]["Vb"]["documents"] == 2 and counts["by_collection"]["Pm"]["chunks"] >= 1
    assert counts["by_translator"]["soma"]["documents"] == 1
    assert counts["suttas_by_collection"]["Thig"] == 1  # a text counts once, whoever translated it
    meta = indexes.chroma.collection.get(where={"translator": "soma"}, include=["metadatas"])["metadatas"]
    assert meta and all(m["basket"] == "sutta" and m["doc_id"] == "thig1.1@soma" for m in meta)
    assert store.document_by_sutta_id("Thig 1.1").doc_id == "thig1.1"
    assert [d.doc_id for d in store.translations("thig1.1")] == []  # by display ID, not uid
    assert [d.doc_id for d in store.translations("Thig 1.1")] == ["thig1.1", "thig1.1@soma"]
    assert store.segment("thig1.1:1.1").doc_id == "thig1.1"
    assert store.alternative_doc_ids() == {"thig1.1": ["thig1.1@soma"]}
    mn10 = [(p.kind, p.uid, p.section, p.partial, p.own_section) for p in store.parallels("mn10")]
    # the groups that list mn10 first (its own view) come before those that list it among others
    assert mn10 == [("parallels", "dn22", "", False, ""), ("parallels", "ma98", "", False, ""),
                    ("parallels", "mn119", "", True, ""), ("parallels", "ea12.1", "", False, ""),
                    ("mentions", "pli-tv-bu-pm", "pc51", False, ""),
                    ("parallels", "dn22", "132", False, "131"), ("parallels", "sn47.1", "2", False, "131")]
    assert [p.uid for p in store.parallels("mn53")] == ["snp1.4", "sn7.11", "sa98"]
    assert all(p.partial for p in store.parallels("mn53"))
    bm25 = BM25Store(settings.index_dir / "bm25").load()
    assert bm25.search("Dhaniya timber", k=3)
    # the table is read again only when it changes
    assert pipeline.ingest(settings, [canon_corpus], embed_model=fake_embed, progress=False).parallels == 0


def test_an_index_built_by_the_old_reader_reads_the_files_it_skipped_and_keeps_its_vectors(
        settings, canon_corpus, monkeypatch, index_state):
    # The old reader knew only the four nikāyas and the Dhammapada: it skipped every other file as "no text".
    real_parse = suttacentral.parse_uid
    old_books = ("dn", "mn", "sn", "an", "dhp")

    def old_parse_uid(uid):
        parsed = real_parse(uid)
        return parsed if parsed is not None and parsed.book in old_books else None

    monkeypatch.setattr(suttacentral, "parse_uid", old_parse_uid)
    monkeypatch.setattr(suttacentral, "PARSER_VERSION", 1)
    old = FakeEmbedding(embed_batch_size=8)
    first = pipeline.ingest(settings, [canon_corpus], embed_model=old, progress=False)
    assert {reason for _, reason in first.skipped} == {"no text found"}
    assert all("thag" not in d for d in index_state(settings)["documents"])
    monkeypatch.undo()

    new = FakeEmbedding(embed_batch_size=8)
    second = pipeline.ingest(settings, [canon_corpus], embed_model=new, progress=False)
    after = index_state(settings)
    assert not second.skipped and "thag1.1" in after["documents"] and "pli-tv-bu-vb-pj2" in after["documents"]
    new_books = {cid for cid, c in after["chunks"].items() if c["book"] not in ("DN", "MN", "SN", "AN", "Dhp")}
    # the old books' chunks kept their vectors; the new texts' cards are embedded twice (whole card and name)
    assert second.cards_embedded > 0 and new.texts_embedded == len(new_books) + 2 * second.cards_embedded
    assert second.chunks_reused == len(after["chunks"]) - len(new_books) > 0
    assert set(after["chunks"]) == set(after["chroma"]) == set(after["bm25"])
    meta = pipeline.Indexes(settings).chroma.collection.get(where={"doc_id": "mn10"}, include=["metadatas"])
    assert {m["basket"] for m in meta["metadatas"]} == {"sutta"}  # metadata rewritten with the kept vectors

    third = pipeline.ingest(settings, [canon_corpus], embed_model=new, progress=False)
    assert (third.files_ingested, third.chunks_written) == (0, 0)


@pytest.mark.parametrize("translator", ["soma", "suddhaso"])
def test_translator_comes_from_the_file_name(tmp_path, translator):
    path = tmp_path / f"translation/en/{translator}/sutta/kn/thig/thig1.1_translation-en-{translator}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(THIG := {"thig1.1:1.1": "A line. "}))
    assert suttacentral.is_translation_file(path) and suttacentral.translator_of(path) == translator
    assert parse_file(path)[0].doc_id == f"thig1.1@{translator}" and THIG


def test_stats_report_baskets_collections_and_translators(settings, canon_corpus, fake_embed):
    from indexing.stats import collect_stats, format_stats

    pipeline.ingest(settings, [canon_corpus], embed_model=fake_embed, progress=False)
    stats = collect_stats(settings)
    assert stats["by_basket"]["sutta"]["documents"] == 20  # the mini corpus's 17 and Thag 1.1, Thig 1.1, Snp 1.4
    assert stats["by_translator"]["sujato"]["documents"] == 20 and stats["by_translator"]["soma"]["documents"] == 1
    text = format_stats(stats)
    assert "by basket: sutta 20 texts / " in text and ", vinaya 4 texts / " in text
    assert "by collection: MN 2 texts / " in text and "Kd 1 texts / " in text
    assert "by translator: sujato 20 texts / " in text and "soma 1 texts / " in text
