"""The likelihood judge (tools/verification/judge.py) with a scripted token scorer, and its place in the
claim verifier."""

from __future__ import annotations

from tools.verification.evidence import EvidenceIndex
from tools.verification.judge import LikelihoodJudge
from tools.verification.verifier import ClaimVerifier

from fakes import WordScorer, passages_of

PASSAGE = "When I stood still, I went under. And when I swam, I was swept away. That is how I crossed the flood."


def test_a_claim_in_the_passages_words_needs_no_model_call():
    scorer = WordScorer()
    judged = LikelihoodJudge(scorer).judge("He crossed the flood: when he swam he was swept away.", PASSAGE)
    assert judged.supported and not judged.scored and scorer.calls == 0


def test_a_degree_word_is_no_claim_to_score():
    # "too" in "did not conclude too soon": how much, not what; the passage never says it
    scorer = WordScorer(priors={"too"})
    judged = LikelihoodJudge(scorer).judge("He swam too and was swept away.", PASSAGE)
    assert judged.supported and scorer.calls == 0


def test_a_word_the_passage_does_not_explain_fails_the_claim_and_is_named():
    # "water" and "walking" are likely to the model without the passage (its own prior), and no likelier with it
    judged = LikelihoodJudge(WordScorer(priors={"walking", "water"})).judge(
        "He crossed the flood by walking on water.", PASSAGE)
    assert not judged.supported
    assert judged.weakest in ("walking", "water")
    assert "does not say" in judged.reason


def test_a_word_the_passage_makes_likely_passes():
    class Paraphrase(WordScorer):
        def continuation_logprobs(self, prompt, continuation):
            out = super().continuation_logprobs(prompt, continuation)
            # the passage ("swept away") makes "carried" likely; without it the model would not say it
            return [(t, -0.5 if "carried" in t and "swept" in prompt else lp) for t, lp in out]

    judged = LikelihoodJudge(Paraphrase()).judge("When he swam he was carried off.", PASSAGE)
    assert judged.supported, judged


def test_names_the_cited_text_uses_elsewhere_are_not_new():
    judged = LikelihoodJudge(WordScorer()).judge("Sāriputta crossed the flood.", PASSAGE, known={"sariputta"})
    assert judged.supported and not judged.scored


def _verifier(store, bm25, scorer=None):
    return ClaimVerifier(EvidenceIndex(store, bm25), llm=scorer, mode="judge" if scorer else "local")


def test_verifier_in_judge_mode_catches_what_shares_words_with_its_passage(stores):
    store, bm25 = stores
    claim = "Purity and impurity are personal matters; no teacher can purify another [MN 201:3.1]."
    local = _verifier(store, bm25).verify(claim, passages_of(store, "mn201")).verdicts[0]
    judged = _verifier(store, bm25, WordScorer(priors={"teacher"})).verify(
        claim, passages_of(store, "mn201")).verdicts[0]
    assert local.verdict == "supported"  # the lexical checks alone let it through
    assert judged.judge == "judge"
    assert judged.verdict == "unsupported", judged.reason


def test_a_pali_title_the_sentence_names_its_text_by_is_no_word_for_the_judge(tmp_path):
    # "Mahasaccaka" is in no line of the text, only in its Pali title "Mahāsaccakasutta": written as the title
    # ("the Mahasaccaka Sutta") it names the text and is not scored; alone it is a word the passage must explain
    from indexing.chunking import chunk_document
    from indexing.models import SourceDocument, Unit
    from indexing.stores.bm25_store import BM25Store
    from indexing.stores.docstore import DocStore

    lines = [("1.1", "At one time the Buddha was staying near Vesālī, at the Great Wood."),
             ("2.1", "Because I ate so little, when I tried to rub the skin of my belly, I grabbed my backbone.")]
    doc = SourceDocument(doc_id="mn36", title="The Longer Discourse with Saccaka", title_pali="Mahāsaccakasutta",
                         source_path="/mem/mn36.json", kind="sutta", units=[Unit(text=t, ref=f"mn36:{n}")
                                                                            for n, t in lines],
                         sutta_id="MN 36", collection="MN", book="MN")
    chunks = chunk_document(doc, target_chars=120, max_chars=200)
    store = DocStore(tmp_path / "docstore.sqlite")
    store.replace_sources([(doc.source_path, [doc], chunks, None)])
    bm25 = BM25Store(tmp_path / "bm25")
    bm25.build([(c.chunk_id, c.embedding_text()) for c in chunks])
    verifier = _verifier(store, bm25, WordScorer(priors={"mahasaccaka"}))
    said = "because he ate so little, he grabbed his backbone when he tried to rub the skin of his belly [MN 36:2.1]."
    named = verifier.verify(f"According to the Mahasaccaka Sutta, {said}", passages_of(store, "mn36")).verdicts[0]
    assert named.verdict == "supported", named.reason
    alone = verifier.verify(f"The Mahasaccaka says that {said}", passages_of(store, "mn36")).verdicts[0]
    assert alone.verdict == "unsupported"
    store.close()


def test_verifier_without_a_scoring_model_falls_back_to_local_checks(stores):
    store, bm25 = stores

    class ChatOnly:  # an LLM that cannot score tokens (Ollama)
        pass

    report = ClaimVerifier(EvidenceIndex(store, bm25), llm=ChatOnly(), mode="judge").verify(
        "Purity and impurity are personal matters [MN 201:3.1].", passages_of(store, "mn201"))
    assert report.mode == "local" and report.verdicts[0].verdict == "supported"


def test_a_person_the_cited_text_never_names_is_unsupported(stores):
    store, bm25 = stores
    v = _verifier(store, bm25).verify(
        "At Ayojjhā on the bank of the Ganges, the Buddha addressed Ānanda [MN 201:1.2].",
        passages_of(store, "mn201")).verdicts[0]
    assert v.verdict == "unsupported" and "Ānanda" in v.reason


def test_a_number_the_cited_text_never_uses_is_unsupported(stores):
    store, bm25 = stores
    v = _verifier(store, bm25).verify(
        "Moggallāna went to the Eastern Monastery and stayed there for nine days [MN 202:3.1].",
        passages_of(store, "mn202")).verdicts[0]
    assert v.verdict == "unsupported", v.reason


def test_never_inside_a_faithful_quotation_is_not_a_negation(stores):
    store, bm25 = stores
    v = _verifier(store, bm25).verify(
        "The text says that “no one can purify another” [MN 201:3.1].", passages_of(store, "mn201")).verdicts[0]
    assert v.verdict == "supported", v.reason
