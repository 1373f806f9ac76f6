"""BM25 treats Pali properly: diacritics folded the same way at index and query time, through a persisted index;
no English stemming of Pali words; an index built with another tokenizer is refused on load."""

import json

import pytest

from indexing.errors import IndexingError
from indexing.stores.bm25_store import TOKENIZER_ID, BM25Store
from indexing.text import fold, tokenize

DOCS = [
    ("accented", "The four kinds of satipaṭṭhāna are the path to convergence."),
    ("plain", "He taught the satipatthana to the Kurus at Kammasadamma."),
    ("body", "Kāyasmiṁ kāyānupassī viharati: meditating by observing an aspect of the body."),
    ("other", "Generosity and virtue lead to a good rebirth."),
]


@pytest.fixture
def reloaded(tmp_path):
    built = BM25Store(tmp_path / "bm25")
    built.build(DOCS)
    built.save()
    return BM25Store(tmp_path / "bm25").load()


def test_a_dotless_i_with_a_macron_folds_like_i():
    # SuttaCentral's blurbs write "Yodhājı̄va" (ı + combining macron); readers write Yodhājīva or Yodhajiva
    assert fold("Yodhājı̄va") == fold("Yodhājīva") == "yodhajiva"
    assert tokenize("Susı̄ma") == tokenize("Susima")


@pytest.mark.parametrize("query", ["satipaṭṭhāna", "satipatthana", "SATIPAṬṬHĀNA", "Satipatthana"])
def test_folded_and_unfolded_forms_match_both_spellings(reloaded, query):
    assert {h.chunk_id for h in reloaded.search(query, k=4)} == {"accented", "plain"}


@pytest.mark.parametrize("query", ["kayasmim", "kāyasmiṁ", "kāyasmiṃ"])
def test_niggahita_variants_fold_together(reloaded, query):
    assert [h.chunk_id for h in reloaded.search(query, k=4)] == ["body"]


@pytest.mark.parametrize("word", ["dhammesu", "kāyasmiṁ", "kāye", "citte", "vedanāsu", "āsavesu", "bhikkhave",
                                  "jhānāni", "sammāsati", "viharati", "ātāpī"])
def test_pali_words_are_not_stemmed(word):
    assert tokenize(word) == [fold(word)]


def test_english_is_still_lightly_stemmed():
    assert tokenize("meditating mendicants") == ["meditat", "mendicant"]


def test_reload_with_a_different_tokenizer_is_refused(tmp_path):
    store = BM25Store(tmp_path / "bm25")
    store.build(DOCS)
    store.save()
    meta = tmp_path / "bm25" / "tokenizer.json"
    assert json.loads(meta.read_text())["tokenizer"] == TOKENIZER_ID
    meta.write_text(json.dumps({"tokenizer": "english-porter-v0"}))
    with pytest.raises(IndexingError, match="tokenizer"):
        BM25Store(tmp_path / "bm25").load()


def test_ingest_rebuilds_a_bm25_index_built_with_another_tokenizer(settings, mini_corpus, fake_embed):
    from indexing.pipeline import ingest

    ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    meta = settings.index_dir / "bm25" / "tokenizer.json"
    meta.write_text(json.dumps({"tokenizer": "english-porter-v0"}))
    report = ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    assert report.bm25_rebuilt
    hits = BM25Store(settings.index_dir / "bm25").load().search("satipatthana", k=3)
    assert hits


def test_document_frequency_counts_chunks_per_token(tmp_path):
    store = BM25Store(tmp_path / "bm25")
    assert store.document_frequency("burn") == (0, 0)  # no index yet
    store.build([("a", "all is burning"), ("b", "the eye is burning"), ("c", "the simile of the saw")])
    store.save()
    reloaded = BM25Store(tmp_path / "bm25").load()
    [burning] = tokenize("burning")
    assert reloaded.document_frequency(burning) == (2, 3)
    assert reloaded.document_frequency("kakacupama") == (0, 3)
