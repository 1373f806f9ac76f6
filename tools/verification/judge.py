"""The semantic judge of the claim verifier: does the passage explain the words of a claim that it does not contain?

Asked "is this claim supported?", a 1.5B model says yes to nearly everything (measured on claims-dev: P(yes) about
0.94 for supported and fabricated claims alike; a "none of these lines" option or a few-shot prompt only moves the
bias). So the model is not asked for a verdict. It is used as what it is, a language model: for each word of the
claim that the passage does not contain, compare how likely the model finds it after reading the passage with how
likely it finds it without the passage (pointwise mutual information, summed over the word's tokens). A paraphrase's
words ("refused" for "did not accept") become likelier once the passage is read; a changed detail ("seven" where the
text says "countless", "Yamunā" for "Ganges", "the five hindrances" for "the three feelings") becomes less likely, or
no likelier, than the model's prior. The claim fails on its least-explained word, and that word is named.

Words the passage contains are the lexical checks' business (tools/verification/verifier.py) and are not scored; a
claim whose every content word is in the passage costs no model call at all.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from typing import Protocol

from prompts import load_prompt
from tools.language.words import words
from tools.verification.evidence import FRAMING, matches_any

log = logging.getLogger(__name__)

# A word whose PMI is below this is not explained by the passage. Set on claims-dev (80 labelled claims): with it,
# the judge adds 4 caught distortions to the lexical checks for 1 false alarm (see README, claim verifier).
THRESHOLD = -3.0
MIN_WORD_CHARS = 3
_WORD = re.compile(r"[^\W\d_](?:[\w’'-]*[^\W_])?")


class TokenScorer(Protocol):
    def continuation_logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        """Each token of `continuation` with its log-probability after `prompt`."""


@dataclass
class WordScore:
    word: str
    pmi: float


@dataclass
class Judgement:
    supported: bool
    score: float  # the lowest PMI among the scored words; 0.0 when none needed scoring
    weakest: str | None = None
    scored: list[WordScore] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def reason(self) -> str:
        return "" if self.supported or not self.weakest else f"the text does not say “{self.weakest}”"


def chatml(system: str, user: str) -> str:
    return f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"


class LikelihoodJudge:
    def __init__(self, scorer: TokenScorer, threshold: float = THRESHOLD):
        self.scorer = scorer
        self.threshold = threshold

    def novel_words(self, claim: str, evidence: str, known: frozenset[str] | set[str] = frozenset()
                    ) -> list[re.Match]:
        """The claim's content words the passage does not contain (nor `known`: the cited text's own words, so a
        name it uses elsewhere is not new); framing ("says", "recalls") and stopwords are left out."""
        have = set(words(evidence))
        out = []
        for m in _WORD.finditer(claim):
            stems = words(m.group(0))
            if not stems:
                continue
            stem = stems[0]
            if len(stem) < MIN_WORD_CHARS or stem in FRAMING or matches_any(stem, have):
                continue
            if m.group(0)[:1].isupper() and stem in known:
                continue
            out.append(m)
        return out

    def judge(self, claim: str, evidence: str, *, question: str = "",
              known: frozenset[str] | set[str] = frozenset()) -> Judgement:
        started = time.perf_counter()
        novel = self.novel_words(claim, evidence, known)
        if not novel:
            return Judgement(True, 0.0, seconds=time.perf_counter() - started)
        asked = f"Question: {question}\n\n" if question else ""
        system = load_prompt("judge_system").strip()
        with_passage = chatml(system, load_prompt("judge_with_passage", question=asked, passage=evidence).strip())
        without = chatml(system, load_prompt("judge_without_passage", question=asked).strip())
        try:
            conditioned = self.scorer.continuation_logprobs(with_passage, claim)
            prior = self.scorer.continuation_logprobs(without, claim)
        except Exception as exc:  # a scoring failure leaves the lexical verdict standing
            log.warning("judge could not score the claim: %s", exc)
            return Judgement(True, 0.0, seconds=time.perf_counter() - started)
        scored = [WordScore(m.group(0), round(_word_logprob(conditioned, m) - _word_logprob(prior, m), 3))
                  for m in novel]
        weakest = min(scored, key=lambda w: w.pmi)
        return Judgement(weakest.pmi >= self.threshold, weakest.pmi, weakest.word, scored,
                         time.perf_counter() - started)


def _word_logprob(tokens: list[tuple[str, float]], word: re.Match) -> float:
    """Sum of the log-probabilities of the tokens that overlap the word's characters."""
    total, at = 0.0, 0
    for text, logprob in tokens:
        end = at + len(text)
        if at < word.end() and end > word.start():
            total += logprob
        at = end
    return total
