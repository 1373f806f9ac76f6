"""Unsupported sentences: replaced by the cited text's own words when the evidence was retrieved, else marked."""

from dataclasses import dataclass, field

from chat import cite
from chat.answer import ClaimVerdict

DRAFT = (
    "The Buddha told the bandit to stop in the Discourse on Loving-kindness [MN 86:5.1–5.14]. "
    "He then walked on calmly [MN 86:5.1–5.14]."
)
WRONG = "The Buddha told the bandit to stop in the Discourse on Loving-kindness."


@dataclass
class _Verdict:
    sentence: str
    verdict: str
    reason: str = ""
    evidence_ref: str | None = None
    evidence_quote: str = ""
    score: float = 0.0

    def to_claim_verdict(self) -> ClaimVerdict:
        return ClaimVerdict(sentence=self.sentence, verdict=self.verdict, reason=self.reason,
                            evidence_ref=self.evidence_ref, evidence_quote=self.evidence_quote, score=self.score)


@dataclass
class _Report:
    verdicts: list = field(default_factory=list)
    confidence: float = 0.5


def _verify(score: float):
    def verify(text: str) -> _Report:
        return _Report([
            _Verdict(WRONG, "unsupported", "not in the cited text (missing: kindness)", "MN 86:5.9",
                     "“I’ve stopped, Aṅgulimāla—now you stop.”", score),
            _Verdict("He then walked on calmly.", "supported", "", "MN 86:5.2", "walked", 0.8),
        ])
    return verify


def test_unsupported_sentence_is_replaced_by_the_retrieved_evidence():
    checked = cite.narrow_and_mark(DRAFT, _verify(0.6), {"MN 86"})
    assert "Loving-kindness" not in checked.text
    assert "In MN 86 the text reads: “I’ve stopped, Aṅgulimāla—now you stop.” [MN 86:5.9]." in checked.text
    assert cite.UNSUPPORTED_MARK not in checked.text
    [claim] = checked.unsupported
    assert claim.sentence == WRONG and claim.revised_to and "MN 86:5.9" in claim.revised_to


def test_weak_or_unretrieved_evidence_is_only_marked():
    for score, retrieved in ((0.1, {"MN 86"}), (0.6, {"MN 21"}), (0.6, None)):
        checked = cite.narrow_and_mark(DRAFT, _verify(score), retrieved)
        assert "Loving-kindness" in checked.text
        assert cite.UNSUPPORTED_MARK in checked.text
        assert checked.unsupported[0].revised_to is None
