"""Unsupported sentences: replaced by the cited text's own words when the evidence was retrieved, else removed,
and listed either way; the reader never sees a mark inside the text."""

from chat.pipeline import checks
from chat.pipeline.draft import Reason, parse, render
from tools.references import find_citations
from tools.verification.verifier import Evidence, Finding, Verdict, VerificationReport

DRAFT = (
    "The Buddha told the bandit to stop in the Discourse on Loving-kindness [MN 86:5.1–5.14]. "
    "He then walked on calmly [MN 86:5.1–5.14]."
)
WRONG = "The Buddha told the bandit to stop in the Discourse on Loving-kindness."


def _Verdict(sentence: str, verdict: str, reason: str = "", evidence_ref: str | None = None, evidence_quote: str = "",
             score: float = 0.0, idle_citations: list[str] | None = None, pointer: bool = False,
             finding: Finding = Finding.SUPPORTED) -> Verdict:
    """The verifier's own Verdict, its evidence parsed from a reference like the verifier would hold it."""
    evidence = None
    if evidence_ref:
        ref = find_citations(f"[{evidence_ref}]")[0]
        evidence = Evidence(ref.sutta_id, ref.seg_start, ref.seg_end, evidence_ref, evidence_quote, score)
    return Verdict(sentence, verdict, reason, evidence, score, idle_citations=list(idle_citations or []),
                   pointer=pointer, finding=finding)


def _Report(verdicts: list[Verdict]) -> VerificationReport:
    for i, v in enumerate(verdicts):  # one verdict per sentence given, in order
        v.index = i
    return VerificationReport(verdicts)


def check_sentences(text: str, verify):
    """The text parsed, checked with this verifier, rendered; and what the reader is told did not stand."""
    checked = checks.check(parse(text), verify, [])
    return render(checked.draft), checks.unsupported_claims(checked.draft)


def _verify(score: float):
    def verify(sentences, cite_from) -> VerificationReport:
        return _Report([
            _Verdict(WRONG, "unsupported", "not in the cited text (missing: kind)", "MN 86:5.9",
                     "“I’ve stopped, Aṅgulimāla—now you stop.”", score, finding=Finding.NOT_IN_TEXT),
            _Verdict("He then walked on calmly.", "supported", "", "MN 86:5.2", "walked", 0.8),
        ])
    return verify


def test_an_unsupported_sentence_goes_whole_and_is_listed_the_rest_stands():
    for score in (0.1, 0.6):  # however close the nearest lines, no spliced quote takes its place
        text, unsupported = check_sentences(DRAFT, _verify(score))
        assert "Loving-kindness" not in text and "⚠" not in text and "“" not in text
        assert text == "He then walked on calmly [MN 86:5.2]."
        [claim] = unsupported
        assert claim.sentence == WRONG and claim.revised_to == ""
        # the reader is told in plain words; the checks' stemmed words stay with the developer's detail
        assert claim.reason == "The cited lines do not say this." and claim.kind == Reason.NOT_IN_TEXT
        assert "missing" not in claim.reason and claim.detail.startswith("not in the cited text")


POINTING = ("The skin of his belly stuck to his backbone [MN 202:2.1]. "
            "This is found in [MN 202:2.1–2.2], [SN 15.2:1.3] and [AN 4.95]. He ate little [MN 202:2.1].")
POINTER = "This is found in, and."


def _pointer_verify(idle: list[str], label: str):
    def verify(sentences, cite_from) -> VerificationReport:
        return _Report([
            _Verdict("The skin of his belly stuck to his backbone.", "supported", "", "MN 202:2.1", "backbone", 0.9),
            _Verdict(POINTER, label, "points back", "MN 202:2.1", "", 1.0, idle_citations=idle, pointer=True,
                     finding=Finding.POINTER_IDLE),
        ])
    return verify


def test_pointer_sentence_keeps_only_the_references_that_hold_the_claim():
    text, unsupported = check_sentences(POINTING, _pointer_verify(["SN 15.2:1.3", "AN 4.95"], "partial"))
    assert "The same is found in [MN 202:2.1–2.2]. He ate little" in text
    assert "SN 15.2" not in text and "AN 4.95" not in text
    assert "⚠" not in text
    [claim] = unsupported
    assert claim.pointer and claim.idle_citations == ["SN 15.2:1.3", "AN 4.95"]
    assert claim.revised_to == "The same is found in [MN 202:2.1–2.2]."


def test_pointer_sentence_whose_references_hold_nothing_is_removed():
    idle = ["MN 202:2.1–2.2", "SN 15.2:1.3", "AN 4.95"]
    text, unsupported = check_sentences(POINTING, _pointer_verify(idle, "unsupported"))
    assert text == "The skin of his belly stuck to his backbone [MN 202:2.1]. He ate little [MN 202:2.1]."
    assert unsupported[0].revised_to == ""


def test_idle_reference_is_dropped_from_a_supported_sentence():
    text = "Purity is a personal matter [MN 201:3.1; MN 202:2.2]. No one purifies another [MN 201:3.1] [MN 202]."

    def verify(sentences, cite_from):
        return _Report([
            _Verdict("Purity is a personal matter.", "supported", "", "MN 201:3.1", "", 0.9,
                     idle_citations=["MN 202:2.2"]),
            _Verdict("No one purifies another.", "supported", "", "MN 201:3.1", "", 0.9, idle_citations=["MN 202"]),
        ])

    checked, unsupported = check_sentences(text, verify)
    assert checked == "Purity is a personal matter [MN 201:3.1]. No one purifies another [MN 201:3.1]."
    assert unsupported == []

