"""The claim verifier on a tiny hand-made docstore: one test per failure kind, plus citation validity."""

from __future__ import annotations

from tools.passages import Passage
from tools.turn import TurnRecorder
from tools.verification.evidence import EvidenceIndex
from tools.verification.verifier import ClaimVerifier, Finding, split_parts, verify_claims_for_agent

from fakes import passages_of


def _one(stores, sentence: str, retrieved=("mn201", "mn202")):
    store, bm25 = stores
    report = ClaimVerifier(EvidenceIndex(store, bm25)).verify(sentence, passages_of(store, *retrieved))
    assert len(report.verdicts) == 1, report.verdicts
    return report.verdicts[0]


def test_supported_paraphrase_with_evidence(stores):
    v = _one(stores, "The Buddha stayed near Ayojjhā on the bank of the Ganges [MN 201:1.2].")
    assert v.verdict == "supported", v.reason
    assert v.evidence.ref.startswith("MN 201:1.2")
    assert "Ganges" in v.evidence_quote
    assert v.score >= 0.6


def test_supported_quote(stores):
    v = _one(stores, "MN 202 says: “Whatever a mendicant frequently thinks about and considers becomes their "
                     "heart’s inclination.” [MN 202:2.2]")
    assert v.verdict == "supported", v.reason


def test_number_differs(stores):
    v = _one(stores, "A mendicant committed to the higher mind should focus on seven subjects from time to time "
                     "[MN 201:2.1].")
    assert v.verdict == "unsupported"
    assert v.reason.startswith("number differs")
    assert v.evidence.ref == "MN 201:2.1"


def test_count_differs_although_the_number_is_in_the_text(stores):
    # "five" is in the text (five subjects), but what it counts here the text counts with four
    v = _one(stores, "Venerable Sāriputta explained the five noble truths to the mendicants in detail [MN 201].")
    assert v.verdict == "unsupported"
    assert v.reason.startswith("number differs"), v.reason
    v = _one(stores, "Venerable Sāriputta explained the four noble truths to the mendicants in detail [MN 201].")
    assert v.verdict == "supported", v.reason


def test_person_differs(stores):
    v = _one(stores, "Venerable Moggallāna explained the four noble truths to the mendicants in detail [MN 201].")
    assert v.verdict == "unsupported"
    assert v.reason.startswith("person differs") and "Sāriputta" in v.reason


def test_place_differs(stores):
    v = _one(stores, "The Buddha was staying near Ayojjhā on the bank of the Yamunā river [MN 201].")
    assert v.verdict == "unsupported"
    assert v.reason.startswith("person differs") and "Ganges" in v.reason


def test_negated(stores):
    v = _one(stores, "Purity and impurity are not personal matters [MN 201:3.1].")
    assert v.verdict == "unsupported"
    assert v.reason.startswith("negated")


def test_fabricated_detail_not_in_cited_text(stores):
    v = _one(stores, "The Buddha told the mendicants that eating meat at the royal palace brings merit [MN 201].")
    assert v.verdict == "unsupported"
    assert v.reason.startswith("not in the cited text")


def test_wrong_citation_found_elsewhere(stores):
    v = _one(stores, "Because he ate so little, the skin of his belly stuck to his backbone [MN 201].")
    assert v.verdict == "unsupported"
    assert v.found_elsewhere and v.found_elsewhere.startswith("MN 202:2.1")
    assert v.reason == f"found elsewhere: {v.found_elsewhere}"


def test_partial_second_half_unsupported(stores):
    v = _one(stores, "The Realized One grew up in the world but lives unsoiled by it like a lotus, and Venerable "
                     "Sāriputta then asked the king for a golden palace [MN 201].")
    assert v.verdict == "partial", v.reason
    assert [p.supported for p in v.parts] == [True, False]


def test_hallucinated_citations(stores):
    store, bm25 = stores
    verifier = ClaimVerifier(EvidenceIndex(store, bm25))
    retrieved = passages_of(store, "mn201")
    cases = {
        "The Buddha stayed near Ayojjhā on the bank of the Ganges [MN 999].": "no such sutta",
        "The Buddha stayed near Ayojjhā on the bank of the Ganges [MN 201:77.1].": "no segment",
        "The Buddha stayed near Ayojjhā on the bank of the Ganges [MN two:1].": "does not parse",
        "Venerable Moggallāna stayed at the Eastern Monastery for seven days [MN 202:3.1].": "not retrieved",
    }
    for sentence, why in cases.items():
        v = verifier.verify(sentence, retrieved).verdicts[0]
        assert v.verdict == "unsupported", sentence
        assert v.reason.startswith("hallucinated citation") and why in v.reason, v.reason
        assert v.bad_citations


def test_segment_outside_retrieved_chunk_is_accepted(stores):
    store, bm25 = stores
    # Only the first chunk of MN 201 was retrieved; citing a later segment of the same sutta is fine.
    first = [Passage.from_chunk(store.chunks_of("mn201")[0])]
    assert first[0].segment_end in ("mn201:1.1", "mn201:1.2", "mn201:2.1")
    verifier = ClaimVerifier(EvidenceIndex(store, bm25))
    v = verifier.verify("Purity and impurity are personal matters [MN 201:3.1].", first).verdicts[0]
    assert v.verdict == "supported", v.reason


def test_non_claims_and_uncited(stores):
    store, bm25 = stores
    draft = ("Here is what the texts say:\n"
             "Purity and impurity are personal matters; no one can purify another [MN 201:3.1]. "
             "The Buddha also praised the river for its many fish. "
             "Would you like to read more about the lotus simile?")
    report = ClaimVerifier(EvidenceIndex(store, bm25)).verify(draft, passages_of(store, "mn201"))
    assert [v.verdict for v in report.verdicts] == ["supported", "uncited"]
    assert report.non_claims == 2
    assert report.unsupported_claims == []
    assert 0 < report.confidence < 1


def test_report_confidence_summary_and_agent_text(stores):
    store, bm25 = stores
    draft = ("Purity and impurity are personal matters [MN 201:3.1]. "
             "A mendicant committed to the higher mind should focus on seven subjects [MN 201:2.1].")
    report = ClaimVerifier(EvidenceIndex(store, bm25)).verify(draft, passages_of(store, "mn201"))
    assert [v.verdict for v in report.verdicts] == ["supported", "unsupported"]
    assert report.confidence == 0.5
    assert [v.sentence for v in report.unsupported_claims] == [report.verdicts[1].sentence]
    assert "1 supported" in report.summary() and "1 unsupported" in report.summary()
    wrong = report.verdicts[1]
    assert wrong.evidence_ref == "MN 201:2.1" and "five" in wrong.evidence_quote
    assert wrong.finding is Finding.NUMBER_DIFFERS and [v.index for v in report.verdicts] == [0, 1]


def test_agent_entry_point_uses_recorder(stores):
    store, bm25 = stores

    from indexing.settings import ScholarSettings
    from tools.library import Library

    library = Library(ScholarSettings(_env_file=None), store, bm25, chroma=None, embed_model=None)
    recorder = TurnRecorder()
    recorder.add_passages(passages_of(store, "mn202"))
    report, text = verify_claims_for_agent(library, recorder, "Purity and impurity are personal matters [MN 201:3.1].")
    assert report.verdicts[0].reason.startswith("hallucinated citation")
    assert "not retrieved in this turn" in text and "UNSUPPORTED" in text


def test_pointer_sentence_is_checked_as_the_claim_it_points_back_to(stores):
    store, bm25 = stores
    verifier = ClaimVerifier(EvidenceIndex(store, bm25))
    claim = "Purity and impurity are personal matters; no one can purify another [MN 201:3.1]."
    cases = {
        "This is found in [MN 201:3.1].": ("supported", []),
        "This is also described in [MN 201:3.1–3.2] and [MN 202:2.2].": ("partial", ["MN 202:2.2"]),
        "See also MN 202 [MN 202:2.1].": ("unsupported", ["MN 202:2.1"]),  # the prose "MN 202" is that sutta
    }
    for pointer, (label, idle) in cases.items():
        report = verifier.verify(f"{claim} {pointer}", passages_of(store, "mn201", "mn202"))
        first, second = report.verdicts
        assert first.verdict == "supported" and not first.pointer
        assert second.pointer and second.verdict == label, (pointer, second.reason)
        assert second.idle_citations == idle
    # a first sentence has nothing to point back to; a sentence that claims something is no pointer
    only = verifier.verify("This is found in [MN 201:3.1].", passages_of(store, "mn201")).verdicts
    assert not any(v.pointer for v in only)
    two = verifier.verify(f"{claim} Moggallāna stayed there for seven days [MN 202:3.1].",
                          passages_of(store, "mn201", "mn202")).verdicts
    assert [v.verdict for v in two] == ["supported", "supported"] and not any(v.pointer for v in two)


def test_a_reference_that_holds_nothing_of_a_supported_sentence_is_idle(stores):
    v = _one(stores, "Purity and impurity are personal matters; no one can purify another [MN 201:3.1; MN 202:2.2].")
    assert v.verdict == "supported" and v.idle_citations == ["MN 202:2.2"]
    # each reference holds one clause: both are needed
    v = _one(stores, "Purity and impurity are personal matters [MN 201:3.1], and whatever a mendicant frequently "
                     "thinks about becomes their heart’s inclination [MN 202:2.2].")
    assert v.verdict == "supported" and v.idle_citations == []


def _check(draft: str, verifier: ClaimVerifier, passages) -> tuple[str, list]:
    """The draft through the pipeline's verification pass with this verifier: the text, what did not stand."""
    from chat.pipeline import checks
    from chat.pipeline.draft import parse, render

    checked = checks.check(parse(draft), lambda sentences, cite: verifier.verify(sentences, passages), [])
    return render(checked.draft), checks.unsupported_claims(checked.draft)


def test_partial_sentence_loses_the_clause_no_passage_holds(stores):
    store, bm25 = stores
    verifier = ClaimVerifier(EvidenceIndex(store, bm25))
    passages = passages_of(store, "mn201", "mn202")
    draft = ("The Realized One grew up in the world but lives unsoiled by it like a lotus, and Venerable "
             "Sāriputta then asked the king for a golden palace [MN 201].")
    text, unsupported = _check(draft, verifier, passages)
    assert text.startswith(
        "The Realized One grew up in the world but lives unsoiled by it like a lotus [MN 201:")
    assert "palace" not in text and "⚠" not in text
    [claim] = unsupported
    assert claim.verdict == "partial" and "palace" in claim.sentence and claim.revised_to == text
    assert claim.kind == "partly" and claim.reason == "Only part of it is in the cited lines; the rest was taken out."
    # what is left is itself supported, cited to the segment that holds it
    assert [v.verdict for v in verifier.verify(text, passages).verdicts] == ["supported"]


def test_a_partial_sentence_is_revised_only_while_its_opening_holds(stores):
    store, bm25 = stores
    verifier = ClaimVerifier(EvidenceIndex(store, bm25))
    passages = passages_of(store, "mn201", "mn202")

    def check(draft):
        text, unsupported = _check(draft, verifier, passages)
        [claim] = unsupported
        assert claim.verdict == "partial" and "palace" not in text
        return claim.revised_to

    # the opening holds: the failed clause after it goes
    assert check("The Realized One grew up in the world but lives unsoiled by it like a lotus, and Venerable "
                 "Sāriputta then asked the king for a golden palace [MN 201].").startswith("The Realized One grew up")
    # the opening fails: what follows was said under it ("The Buddha answered … by saying that …, and whoever took
    # shelter would commit an offense" kept the demands as his answer), so nothing of it is kept, not even an
    # independent clause after "and", nor the last item of a list whose other items failed
    assert check("Venerable Sāriputta then asked the king for a golden palace, and the Realized One grew up in the "
                 "world but lives unsoiled by it like a lotus [MN 201].") == ""
    assert check("Sāriputta saw a lotus that grew in the palace of the king, a lotus that grew in the golden water, "
                 "and a lotus that sprouted and grew in the water [MN 201].") == ""
    # the opening holds but the verb that frames it is in the part that failed: what is left has no verb ("The
    # doctrine of ascetics and brahmins who view sensual pleasures as pleasant now"), so nothing of it is kept
    assert check("A lotus that sprouted and grew in the water and rose up above it, but then sank under the golden "
                 "palace of the king, illustrates the Realized One [MN 201].") == ""


def test_a_sentence_whose_quotation_changes_the_texts_words_is_unsupported(stores):
    store, bm25 = stores
    passages = passages_of(store, "mn201", "mn202")
    verifier = ClaimVerifier(EvidenceIndex(store, bm25))
    faithful = "The text says “the Realized One was born and grew up in the world but lives unsoiled by it” [MN 201]."
    assert verifier.verify(faithful, passages).verdicts[0].verdict == "supported"
    changed = faithful.replace("lives unsoiled by it", "lives soiled by it")
    [v] = verifier.verify(changed, passages).verdicts
    assert v.verdict == "unsupported" and v.reason.startswith("misquoted")


def test_split_parts():
    assert split_parts("MN 1 says X is good and Y is bad.") == ["says X is good and Y is bad"]
    parts = split_parts("Sāriputta guides people to stream-entry, and the Buddha analyzes the four truths himself.")
    assert len(parts) == 2
    # a short tail stays with its clause rather than being judged alone
    assert len(split_parts("A lotus grows in water but stands above it.")) == 1


def test_six_sentence_answer_is_fast(stores):
    import time

    store, bm25 = stores
    sentence = "Purity and impurity are personal matters; no one can purify another [MN 201:3.1]. "
    started = time.perf_counter()
    report = ClaimVerifier(EvidenceIndex(store, bm25)).verify(sentence * 6, passages_of(store, "mn201"))
    assert len(report.verdicts) == 6
    assert time.perf_counter() - started < 2.0


def test_the_models_own_sentence_may_gather_a_passage_from_neighbouring_lines_not_from_across_the_text(stores):
    from tools.verification.evidence import SegmentView, SuttaView, Window
    from tools.verification.verifier import STRICT_REGION, _region_coverage

    def seg(i: int, *words: str) -> SegmentView:
        return SegmentView(f"x:{i}", " ".join(words), frozenset(words), frozenset())

    segments = [seg(0, "river"), seg(1, "lotus"), seg(2, "grew", "water"), seg(3), seg(4, "unsoil"), seg(5, "world")]
    view = SuttaView(doc=None, segments=segments, tokens=frozenset(), prefixes=frozenset(), lowercase=frozenset())
    weights = dict.fromkeys(("lotus", "water", "unsoil", "world"), 1.0)
    best = Window(view, 2, 2, 0.25, frozenset({"water"}))
    assert STRICT_REGION == 2
    assert _region_coverage(best, list(weights), weights, 2) == 0.75  # lotus, water, unsoiled: not the world
    assert _region_coverage(best, list(weights), weights, 0) == 0.25

    # words gathered from opposite ends of a text are still no passage of it
    store, bm25 = stores
    recombined = ("The Buddha was staying near Ayojjhā on the bank of the Ganges, where the Realized One grew up "
                  "unsoiled by the world [MN 201].")
    report = ClaimVerifier(EvidenceIndex(store, bm25)).verify(recombined, passages_of(store, "mn201"), strict=True)
    assert [v.verdict for v in report.verdicts] != ["supported"]
