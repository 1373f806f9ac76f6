"""The LLM-judge and combined modes with a scripted LLM, and the dense second opinion with a fake embedding."""

from __future__ import annotations

from chat.providers.scripted import ScriptedLLM
from tools.evidence import EmbeddingScorer, EvidenceIndex
from tools.verifier import ClaimVerifier
from tools.verifier_judge import parse_judgement

from conftest import passages_of


def _prompt(llm: ScriptedLLM, call: int) -> str:
    return "\n".join(m.content or "" for m in llm.prompts[call])


def test_parse_judgement():
    assert parse_judgement('{"verdict": "partial", "reason": "second half"}') == ("partial", "second half")
    assert parse_judgement('Sure! {"verdict": "Supported"}') == ("supported", "")
    assert parse_judgement("unsupported: the text says four") == ("unsupported", "the text says four")
    assert parse_judgement("I am not sure.") is None


def test_llm_mode_uses_the_judge_with_the_evidence(stores):
    store, bm25 = stores
    llm = ScriptedLLM(['{"verdict": "unsupported", "reason": "the text does not say this"}'])
    verifier = ClaimVerifier(EvidenceIndex(store, bm25), llm=llm)
    v = verifier.verify("Purity and impurity are personal matters [MN 201:3.1].", passages_of(store, "mn201"),
                        mode="llm").verdicts[0]
    assert (v.verdict, v.reason, v.judge) == ("unsupported", "the text does not say this", "llm")
    assert "MN 201:3.1" in _prompt(llm, 0) and "no one can purify another" in _prompt(llm, 0)


def test_both_mode_keeps_local_hard_failures_and_lets_judge_decide_the_rest(stores):
    store, bm25 = stores
    llm = ScriptedLLM(['{"verdict": "supported"}', '{"verdict": "supported"}'])
    verifier = ClaimVerifier(EvidenceIndex(store, bm25), llm=llm)
    report = verifier.verify(
        "A mendicant committed to the higher mind should focus on seven subjects [MN 201:2.1]. "
        "Inside, the Realized One lives in the world unstained, as a lotus sits above the water [MN 201:3.2].",
        passages_of(store, "mn201"), mode="both")
    first, second = report.verdicts
    assert first.verdict == "unsupported" and first.reason.startswith("number differs")
    assert second.verdict == "supported" and second.judge == "both"


def test_judge_failure_falls_back_to_local(stores):
    store, bm25 = stores
    llm = ScriptedLLM(["no idea"])
    v = ClaimVerifier(EvidenceIndex(store, bm25), llm=llm).verify(
        "Purity and impurity are personal matters [MN 201:3.1].", passages_of(store, "mn201"), mode="llm").verdicts[0]
    assert v.verdict == "supported" and v.judge == "local"


def test_dense_scores_are_batched_and_cached(stores, fake_embed):
    store, bm25 = stores
    verifier = ClaimVerifier(EvidenceIndex(store, bm25), EmbeddingScorer(fake_embed))
    draft = "Purity and impurity are personal matters [MN 201:3.1]. " * 2
    report = verifier.verify(draft, passages_of(store, "mn201"))
    assert [v.verdict for v in report.verdicts] == ["supported", "supported"]
    calls = fake_embed.batch_calls
    verifier.verify(draft, passages_of(store, "mn201"))
    assert fake_embed.batch_calls == calls  # every text was cached on the first pass
