import logging
import math

import pytest

from chat.providers.scripted import ScriptedLLM
from tools.passages import Passage
from tools.search.rerank import CrossEncoderReranker, LLMReranker, NoReranker, build_reranker, rerank
from tools.search.retriever import search

from helpers_tools import open_library


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "tools-index")


def _passages(texts_and_scores):
    out = []
    for i, (text, final) in enumerate(texts_and_scores):
        p = Passage(chunk_id=f"c{i}", doc_id=f"d{i}", chunk_index=0, sutta_id=f"MN {i + 1}", title="t", text=text)
        p.scores = {"fused": final / 60, "final": final}
        out.append(p)
    return out


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    """A 2-layer BERT with random weights and a 40-word vocabulary, saved like any cross-encoder folder."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    words = "the a saw bandits limb mind fire burning eye craving suffering origin noble truth love heart".split()
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, ",", ".", "?"]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer(vocab_file=str(folder / "vocab.txt"))
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, num_labels=1)
    torch.manual_seed(7)
    model = BertForSequenceClassification(config).eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder, model, tokenizer


def test_cross_encoder_scores_come_from_the_model(tiny_cross_encoder):
    import torch

    folder, model, tokenizer = tiny_cross_encoder
    reranker = CrossEncoderReranker(folder)
    query = "the fire burning"
    passages = _passages([("the eye burning fire", 0.9), ("bandits saw limb", 0.5), ("craving origin suffering", 0.2)])
    got = reranker.score(query, passages)
    with torch.no_grad():
        enc = tokenizer([query] * 3, [p.text for p in passages], padding=True, return_tensors="pt")
        logits = model(**enc).logits.squeeze(-1).tolist()
    assert got == pytest.approx([1 / (1 + math.exp(-x)) for x in logits], abs=1e-4)
    assert all(0.0 <= s <= 1.0 for s in got)


def test_final_score_mixes_retrieval_and_rerank_with_the_weight(tiny_cross_encoder):
    folder, _, _ = tiny_cross_encoder
    reranker = CrossEncoderReranker(folder)
    passages = _passages([("the eye burning fire", 0.9), ("bandits saw limb", 0.5), ("craving origin suffering", 0.2)])
    raw = dict(zip([p.chunk_id for p in passages], reranker.score("the fire", passages)))
    out = rerank(reranker, "the fire", passages, weight=0.3)
    for p in out:
        retrieval = {"c0": 0.9, "c1": 0.5, "c2": 0.2}[p.chunk_id]
        assert p.scores["rerank"] == pytest.approx(raw[p.chunk_id], abs=1e-4)
        assert p.scores["final"] == pytest.approx(0.7 * retrieval + 0.3 * raw[p.chunk_id], abs=1e-3)
    assert [p.scores["final"] for p in out] == sorted((p.scores["final"] for p in out), reverse=True)


def test_keep_first_leaves_named_suttas_on_top():
    class Reverse:
        name = "reverse"

        def score(self, query, passages):
            return [i / len(passages) for i in range(len(passages))]

    passages = _passages([("a", 1.0), ("b", 0.9), ("c", 0.8), ("d", 0.7)])
    out = rerank(Reverse(), "q", passages, weight=1.0, keep_first=1)
    assert [p.chunk_id for p in out] == ["c0", "c3", "c2", "c1"]


def test_none_is_the_default_and_changes_nothing(lib):
    assert build_reranker(lib.settings).name == "none"
    passages = _passages([("a", 0.9), ("b", 0.5)])
    out = rerank(NoReranker(), "q", passages, weight=0.5)
    assert [p.chunk_id for p in out] == ["c0", "c1"] and "rerank" not in out[0].scores


def test_missing_model_falls_back_to_none_with_a_warning(lib, tmp_path, caplog):
    settings = lib.settings.model_copy(update={"reranker": "cross-encoder", "reranker_model": str(tmp_path / "nope")})
    with caplog.at_level(logging.WARNING):
        assert build_reranker(settings).name == "none"
    assert "not found" in caplog.text
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    settings = settings.model_copy(update={"reranker_model": str(broken)})
    assert build_reranker(settings).name == "none"
    assert build_reranker(settings.model_copy(update={"reranker": "llm"})).name == "none"  # no LLM given


def scripted_judge() -> ScriptedLLM:
    """Says yes when the passage mentions a saw: a stand-in for a local model's judgement."""
    def reply(messages) -> str:
        passage = (messages[-1].content or "").split("Passage", 1)[1]
        return "Yes." if "saw" in passage else "No"

    return ScriptedLLM(reply)


def test_llm_reranker_scores_yes_and_no(lib):
    judge = scripted_judge()
    reranker = build_reranker(lib.settings.model_copy(update={"reranker": "llm"}), llm=judge)
    assert isinstance(reranker, LLMReranker)
    passages = _passages([("fire and burning", 0.9), ("bandits with a saw", 0.4)])
    out = rerank(reranker, "what about the saw?", passages, weight=0.8)
    assert [p.chunk_id for p in out] == ["c1", "c0"]
    assert out[0].scores["rerank"] == 1.0 and out[1].scores["rerank"] == 0.0
    assert judge.calls == 2


def test_search_in_rerank_mode_uses_the_library_reranker(tmp_path_factory):
    lib = open_library(tmp_path_factory.getbasetemp() / "tools-index", reranker="llm")
    assert lib.reranker().name == "none"  # the llm reranker waits for a call that brings an LLM
    assert lib.reranker(llm=scripted_judge()).name == "llm"
    result = search(lib, "limbs cut with a saw by bandits", k=4, mode="hybrid+rerank")
    assert "rerank:llm" in result.search_types_used
    assert all("rerank" in p.scores for p in result.passages)
    assert result.passages[0].sutta_id == "MN 21"
