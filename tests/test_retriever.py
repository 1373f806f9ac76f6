import pytest

from tools.errors import ToolError
from tools.library import Library
from tools.passages import Passage
from tools.search.query import analyse_query
from tools.search.retriever import dedup, mmr, rrf, search

from corpus import STOCK
from fakes import FakeEmbedding
from helpers_tools import open_library, tools_index


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "tools-index")


def test_weighted_rrf():
    fused = rrf({"bm25": [("a", 9.0), ("b", 5.0)], "dense": [("b", 0.9), ("c", 0.8)]}, {"bm25": 2.0, "dense": 1.0}, 60)
    assert fused["a"] == pytest.approx(2 / 61)
    assert fused["b"] == pytest.approx(2 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 62)


@pytest.mark.parametrize("mode, used", [("bm25", ["bm25"]), ("dense", ["dense"]), ("hybrid", ["bm25", "dense"])])
def test_modes_and_stage_scores(lib, mode, used):
    result = search(lib, "bandits sever limb from limb with a two-handled saw", k=3, mode=mode)
    assert result.search_types_used == used
    top = result.passages[0]
    assert top.sutta_id == "MN 21" and top.segment_start and top.text and top.pali
    for name in used:
        assert name in top.scores
    assert {"fused", "final"} <= top.scores.keys()


def test_hybrid_fuses_both_lists(lib):
    result = search(lib, "the craving that leads to future lives", k=5, mode="hybrid")
    both = [p for p in result.passages if "bm25" in p.scores and "dense" in p.scores]
    assert both, "a passage found by both retrievers carries both scores"
    assert both[0].scores["fused"] > max(p.scores["fused"] for p in result.passages if "bm25" not in p.scores)


def test_a_sutta_id_in_the_question_puts_that_sutta_first(lib):
    result = search(lib, "In MN 10, what is the path to convergence?", k=5)
    assert result.pinned_suttas == ["MN 10"]
    assert result.passages[0].sutta_id == "MN 10"
    assert "convergence" in result.passages[0].text
    # a sutta in a range document is found through its own number
    assert search(lib, "What does SN 12.110 say about a teacher?", k=3).passages[0].doc_id == "sn12.104-114"


def test_an_unknown_id_is_noted_not_replaced(lib):
    result = search(lib, "What is taught in MN 175?", k=3)
    assert result.pinned_suttas == []
    assert any("There is no MN 175" in n for n in result.notes)


def test_a_resolved_alias_puts_that_sutta_first(lib):
    result = search(lib, "In the Fire Sermon, what is everything burning with?", k=5)
    assert result.pinned_suttas == ["SN 35.28"]
    assert result.passages[0].sutta_id == "SN 35.28"


def test_stock_passages_are_deduplicated_with_also_in(lib):
    result = search(lib, "the path that goes to the unconditioned: observing an aspect of the body", k=6)
    stock = [p for p in result.passages if p.text.strip() == STOCK.strip()]
    assert len(stock) == 1
    assert {stock[0].sutta_id, *stock[0].also_in} == {"SN 43.5", "AN 4.274"}
    assert len({p.chunk_id for p in result.passages}) == len(result.passages)


def test_collection_filter_and_hint(lib):
    only_mn = search(lib, "mindfulness meditation", k=5, collection="MN")
    assert only_mn.passages and {p.collection for p in only_mn.passages} == {"MN"}
    with pytest.raises(ToolError):
        search(lib, "mindfulness", collection="XX")
    plan = analyse_query(lib, "In the Linked Discourses, which sutta is about mindfulness meditation?")
    assert plan.collections == ["SN"]
    both = analyse_query(lib, "It appears in both the Long and the Middle Discourses")
    assert sorted(both.collections) == ["DN", "MN"]
    hinted = search(lib, "In the Numbered Discourses: observing the body, the path to the unconditioned", k=3)
    assert hinted.passages[0].collection == "AN"


def test_query_cleanup_drops_question_boilerplate(lib):
    plan = analyse_query(lib, "Which discourse does the Buddha describe bandits with a saw in?")
    assert plan.bm25_text.lower().split() == ["bandits", "saw"]


def test_query_embeddings_are_cached(lib):
    lib.clear_query_cache()
    embed = lib.embed_model
    before = embed.texts_embedded
    calls = []
    original = type(embed)._get_query_embedding

    def counting(self, query):
        calls.append(query)
        return original(self, query)

    type(embed)._get_query_embedding = counting
    try:
        search(lib, "greed hate and delusion fires", k=3)
        search(lib, "greed hate and delusion fires", k=3)
    finally:
        type(embed)._get_query_embedding = original
    assert calls.count("greed hate and delusion fires") == 1
    assert embed.texts_embedded == before


class BrokenEmbedding(FakeEmbedding):
    def _get_query_embedding(self, query):
        raise ConnectionError("embedding server down")


def test_dense_failure_degrades_to_bm25(tmp_path_factory):
    settings, _ = tools_index(tmp_path_factory.getbasetemp() / "tools-index")
    broken = Library.open(settings, embed_model=BrokenEmbedding(model_name="broken"))
    result = search(broken, "bandits with a two-handled saw", k=3, mode="hybrid")
    assert result.search_types_used == ["bm25"]
    assert any("dense search failed" in n for n in result.notes)
    assert result.passages[0].sutta_id == "MN 21"
    off = Library.open(settings, dense=False)
    assert off.dense_error and not off.dense_ready
    result = search(off, "bandits with a two-handled saw", k=3, mode="dense")
    assert result.search_types_used == ["bm25"] and result.passages


def test_mmr_prefers_diverse_passages():
    def p(cid, fused):
        x = Passage(chunk_id=cid, doc_id=cid, chunk_index=0, sutta_id=cid, title="", text=cid)
        x.scores = {"fused": fused}
        return x

    items = [p("a", 1.0), p("a2", 0.99), p("b", 0.8)]
    vectors = {"a": [1.0, 0.0], "a2": [1.0, 0.01], "b": [0.0, 1.0]}
    assert [x.chunk_id for x in mmr(items, 2, 0.5, vectors)] == ["a", "b"]
    assert [x.chunk_id for x in mmr(items, 2, 1.0, vectors)] == ["a", "a2"]  # lambda 1: relevance only


def test_dedup_keeps_first_and_notes_the_other_suttas():
    def p(cid, sid, text):
        return Passage(chunk_id=cid, doc_id=cid, chunk_index=0, sutta_id=sid, title="", text=text)

    out = dedup([p("1", "SN 1.1", STOCK), p("2", "AN 1.1", STOCK + " Extra."), p("3", "MN 1", "something else")])
    assert [x.chunk_id for x in out] == ["1", "3"]
    assert out[0].also_in == ["AN 1.1"]
    assert [t.chunk_id for t in out[0].twins] == ["2"]  # it holds every word of the kept one
    assert "twins" not in out[0].to_dict()
    verse = "All conditions are impermanent when this is seen with wisdom one grows disillusioned with suffering"
    other = verse.replace("impermanent", "unsatisfying")
    out = dedup([p("1", "Dhp 277", verse), p("2", "Dhp 278", other)])
    assert len(out) == 1 and out[0].also_in == ["Dhp 278"] and out[0].twins == []  # similar, not the same claim


def test_bad_arguments(lib):
    with pytest.raises(ToolError):
        search(lib, "   ")
    with pytest.raises(ToolError):
        search(lib, "x", mode="magic")


def test_in_memory_dense_search_agrees_with_chroma(lib):
    from tools.search.retriever import _dense

    query = "bandits sever limb from limb with a two-handled saw"
    assert lib.matrix() is not None
    from_matrix = _dense(lib, query, 5)
    from_chroma = [(h.chunk_id, h.score) for h in lib.chroma.search(lib.embed_query(query), k=5)]
    assert [c for c, _ in from_matrix] == [c for c, _ in from_chroma]
    # both paths report cosine similarity for the same vectors
    assert [s for _, s in from_matrix] == pytest.approx([s for _, s in from_chroma], abs=1e-3)
    inside = _dense(lib, query, 3, {"doc_id": "mn10"})
    assert inside and all(cid in lib.chunk_ids_of("mn10") for cid, _ in inside)


def test_phrase_factors_reward_word_pairs_in_order():
    from indexing.models import Chunk
    from tools.search.retriever import phrase_factors

    def chunk(cid, text):
        return Chunk(chunk_id=cid, doc_id=cid, chunk_index=0, text=text, title="", source_path="", chunk_type="prose",
                     char_start=0, char_end=len(text))

    chunks = {"a": chunk("a", "a carpenter might knock out a large peg with a finer peg"),
              "b": chunk("b", "a finer carpenter, a peg, large and out"),
              "c": chunk("c", "nothing relevant here")}
    factors = phrase_factors("knocking out a large peg with a finer peg", chunks)
    assert factors["a"] > factors.get("b", 1.0) and "c" not in factors


def _sutta(uid: str, title: str, *lines: str) -> tuple[dict[str, str], dict[str, str]]:
    en = {f"{uid}:0.1": f"Linked Discourses {uid[2:]} ", f"{uid}:0.2": f"{title} "}
    en.update({f"{uid}:{n}.1": f"{line} " for n, line in enumerate(lines, 1)})
    return en, {k: f"pali {k} " for k in en}


def test_a_word_the_reader_repeats_does_not_outvote_the_saying_quoted(tmp_path):
    from indexing.pipeline import ingest
    from indexing.settings import ScholarSettings

    from corpus import write_tree

    # the reader quotes another translation, which repeats "greatest" where this one says "highest"
    tree = write_tree(tmp_path / "corpus", {
        "sutta/sn/sn1/sn1.1": _sutta("sn1.1", "Treasure", "Fools neglect it; the wise guard their wealth, "
                                     "diligence, the greatest treasure, the greatest of the greatest."),
        "sutta/sn/sn1/sn1.2": _sutta("sn1.2", "Happiness", "Health is the highest gain, contentment the highest "
                                     "wealth, trust the highest kin, extinguishment the highest bliss."),
        **{f"sutta/sn/sn1/sn1.{n}": _sutta(f"sn1.{n}", f"Other {n}", f"A mendicant {w} in the forest.")
           for n, w in [(3, "walks"), (4, "sits"), (5, "sleeps"), (6, "eats")]},
    })
    settings = ScholarSettings(_env_file=None, index_dir=tmp_path / "index", corpus_paths=[tree],
                               nicknames_csv=tmp_path / "none.csv", chroma_url=None)
    embed = FakeEmbedding(model_name="fake-hash-64", embed_batch_size=16)
    ingest(settings, [tree], embed_model=embed, progress=False)
    quote = "Health is the greatest gift, contentment the greatest wealth, extinguishment the greatest bliss"

    def first(k3):
        lib = Library.open(settings.model_copy(update={"query_tf_k3": k3}), embed_model=embed)
        return search(lib, quote, k=3, mode="bm25").passages[0].sutta_id

    assert first(None) == "SN 1.1"  # linear: "greatest" three times outweighs the saying's own words
    assert first(1.0) == "SN 1.2"
