"""Sutta cards: built at ingest from what the docstore holds, kept incrementally, and fused into search."""

import json

import pytest

from indexing.cards import NAME_SUFFIX, build_cards, cards_dir, load_cards, open_card_vectors, refresh_cards
from indexing.pipeline import Indexes, ingest
from indexing.settings import ScholarSettings
from tools.search.retriever import search

from corpus import write_names_corpus
from fakes import FakeEmbedding
from helpers_tools import names_index, open_names_library


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_names_library(tmp_path_factory.getbasetemp() / "names-index")


def _card(lib, sutta_id):
    return lib.cards.by_sutta[sutta_id]


def test_card_fields_come_from_the_document(lib):
    leash = _card(lib, "SN 22.99")
    assert leash.title == "A Leash" and leash.title_pali == "Gaddulabaddhasutta"
    assert "dog on a leash" in leash.blurb and "Flowers" in leash.chapter
    assert leash.opening.startswith("There comes a time") and "mahāsamuddo" in leash.opening_pali
    assert "Dog Leash Simile" in leash.names  # a nickname from the CSV
    # a text inside a range file has no title of its own: the chapter's name is not taken for one
    assert _card(lib, "AN 1.48").title == "" and "Spike" in _card(lib, "AN 1.48").chapter


def test_stock_opening_lines_are_left_off(tmp_path):
    docs_tree = write_names_corpus(tmp_path / "corpus")
    # six more texts opening with the same framing line: it is stock, and no card starts with it
    for n in range(1, 7):
        en = {f"sn9.{n}:0.1": f"Linked Discourses 9.{n} ", f"sn9.{n}:0.2": "1. Forest ", f"sn9.{n}:0.3": f"Text {n} ",
              f"sn9.{n}:1.1": "At one time the Buddha was staying near Sāvatthī. ",
              f"sn9.{n}:1.2": f"A deity spoke of topic number {n}. "}
        path = docs_tree / "translation/en/sujato/sutta/sn/sn9" / f"sn9.{n}_translation-en-sujato.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(en), encoding="utf-8")
    settings = ScholarSettings(_env_file=None, index_dir=tmp_path / "index", corpus_paths=[docs_tree], chroma_url=None)
    ingest(settings, [docs_tree], embed_model=FakeEmbedding(model_name="fake"), progress=False)
    cards = {c.sutta_id: c for c in build_cards(Indexes(settings).docstore, {})}
    assert cards["SN 9.3"].opening == "A deity spoke of topic number 3."


QUESTION = "Which discourse has a dog tied to a post?"


def test_title_only_match_via_the_card(lib):
    # "dog" and "post" are in no passage of SN 22.99, only in its blurb (and its card)
    question = QUESTION
    for mode in ("bm25", "hybrid"):
        result = search(lib, question, k=3, mode=mode)
        top = result.passages[0]
        assert top.sutta_id == "SN 22.99", mode
        assert "card" in top.scores and top.text.startswith("There comes a time")  # the sutta's passage, not the card


def test_without_cards_the_title_only_question_misses(lib):
    off = lib.settings.model_copy(update={"card_weight": 0.0})
    from tools.library import Library

    plain = Library.open(off, embed_model=lib.embed_model)
    result = search(plain, QUESTION, k=3, mode="bm25")
    assert not result.passages or result.passages[0].sutta_id != "SN 22.99"


def test_cards_follow_the_docstore_incrementally(tmp_path):
    tree = write_names_corpus(tmp_path / "corpus")
    settings = ScholarSettings(_env_file=None, index_dir=tmp_path / "index", corpus_paths=[tree], chroma_url=None)
    embed = FakeEmbedding(model_name="fake")
    first = ingest(settings, [tree], embed_model=embed, progress=False)
    n_docs = len(Indexes(settings).docstore.documents())
    assert first.cards_embedded == n_docs
    assert open_card_vectors(settings).count() == 2 * n_docs  # a card and a name vector each

    again = ingest(settings, [tree], embed_model=embed, progress=False)
    assert again.cards_embedded == 0

    # a new blurb changes one card: only that card is embedded again
    blurbs = tree / "root/en/blurb/sn-blurbs_root-en.json"
    data = json.loads(blurbs.read_text())
    data["sn-blurbs:sn1.42"] = "What one gives, and what it gives in return."
    blurbs.write_text(json.dumps(data), encoding="utf-8")
    from indexing.sources.suttacentral import _names

    _names.cache_clear()
    (tree / "translation/en/sujato/sutta/sn/sn1/sn1.42_translation-en-sujato.json").touch()
    gift = tree / "translation/en/sujato/sutta/sn/sn1/sn1.42_translation-en-sujato.json"
    gift.write_text(gift.read_text().replace("strength?", "strength? "), encoding="utf-8")
    embed.reset_counts()
    third = ingest(settings, [tree], embed_model=embed, progress=False)
    assert third.cards_embedded == 1
    texts_of_the_file = len(Indexes(settings).docstore.chunk_ids_for_source(str(gift)))
    assert embed.texts_embedded == texts_of_the_file + 1  # its chunks and the card; the name vector is unchanged
    assert "gives in return" in load_cards(cards_dir(settings))["sn1.42"].blurb

    # a removed file takes its cards along
    gift.unlink()
    ingest(settings, [tree], embed_model=embed, progress=False)
    ids = set(open_card_vectors(settings).collection.get(include=[])["ids"])
    assert "sn1.42" not in ids and "sn1.42" + NAME_SUFFIX not in ids
    assert "sn1.42" not in load_cards(cards_dir(settings))


def test_refresh_is_a_no_op_when_nothing_changed(tmp_path):
    settings, _ = names_index(tmp_path / "idx")
    indexes = Indexes(settings)

    def model():
        raise AssertionError("nothing should be embedded")

    report = refresh_cards(settings, indexes.docstore, model, docs_changed=False)
    assert report.embedded == 0 and report.cards > 0
    report = refresh_cards(settings, indexes.docstore, model, docs_changed=True)  # checks digests, embeds nothing
    assert report.embedded == 0 and not report.bm25_rebuilt


def test_an_index_from_before_per_vector_digests_is_adopted_without_embedding(tmp_path):
    settings, _ = names_index(tmp_path / "idx")
    indexes = Indexes(settings)
    vectors = open_card_vectors(settings)
    got = vectors.collection.get(include=["metadatas"])
    cards = load_cards(cards_dir(settings))
    # what an older ingest wrote: the whole card's digest on the card vector, none on the name vector
    from indexing.cards import _legacy_digest
    from indexing.embeddings import embed_model_name

    model_name = embed_model_name(settings)
    old = [{**m, "digest": _legacy_digest(cards[i], model_name)} if not i.endswith(NAME_SUFFIX)
           else {k: v for k, v in m.items() if k != "digest"} for i, m in zip(got["ids"], got["metadatas"])]
    vectors.collection.update(ids=got["ids"], metadatas=old)

    def model():
        raise AssertionError("nothing should be embedded")

    report = refresh_cards(settings, indexes.docstore, model, docs_changed=True)
    assert report.embedded == 0 and report.removed == 0
    again = refresh_cards(settings, indexes.docstore, model, docs_changed=True)  # the digests are the new kind now
    assert again.embedded == 0
    assert vectors.count() == 2 * len(cards)


def test_a_stale_card_vector_is_embedded_again_and_its_name_vector_kept(tmp_path):
    settings, embed = names_index(tmp_path / "idx")
    indexes = Indexes(settings)
    vectors = open_card_vectors(settings)
    vectors.collection.update(ids=["sn22.99"], metadatas=[{"doc_id": "sn22.99", "digest": "stale"}])
    fake = FakeEmbedding(model_name="fake")
    report = refresh_cards(settings, indexes.docstore, lambda: fake, docs_changed=True)
    assert report.embedded == 1 and report.vectors_embedded == 1 and fake.texts_embedded == 1


def test_a_new_title_in_the_titles_table_alone_embeds_that_card_again(tmp_path):
    # No document changes, so the ingest's lexical phase rewrites the cards' text and leaves their vectors owed; the
    # semantic phase must then embed the changed card, not count the stale vectors as done.
    tree = write_names_corpus(tmp_path / "corpus")
    titles = tmp_path / "titles.csv"
    titles.write_text("alias,sutta_id,translator,source\n", encoding="utf-8")
    settings = ScholarSettings(_env_file=None, index_dir=tmp_path / "index", corpus_paths=[tree], chroma_url=None,
                               titles_csv=titles)
    embed = FakeEmbedding(model_name="fake")
    ingest(settings, [tree], embed_model=embed, progress=False)
    titles.write_text("alias,sutta_id,translator,source\nThe Dog Tied Up,SN 22.99,someone,a page\n", encoding="utf-8")
    embed.reset_counts()
    again = ingest(settings, [tree], embed_model=embed, progress=False)
    assert again.cards_embedded == 1 and embed.texts_embedded == 1  # the card; its name vector holds no other names
    assert "The Dog Tied Up" in load_cards(cards_dir(settings))["sn22.99"].names
    assert ingest(settings, [tree], embed_model=embed, progress=False).cards_embedded == 0
