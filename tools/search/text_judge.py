"""Which text is the question about? The local model as a judge among the search's first texts and the cards'.

Readers describe a text ("the poem contrasting a cattleman's security with a renunciant's") in words its lines do
not use, so shared words and MiniLM's closeness put the right text among the first few far more often than first
(issue #26), and the sutta cards, whose SuttaCentral blurbs hold such descriptions, are one vote among many. Asked
"which of these is it?", a 1.5B model mostly answers with the first it is shown. So it is used as what it is, a
language model: for each candidate text, how likely it finds the reader's question after reading the text's title,
blurb and best lines — query likelihood (Sachan et al. 2022, "Improving Passage Retrieval with Zero-Shot Question
Generation"). The question is the same for every candidate, so the sums of its tokens' log-probabilities compare
directly, and no candidate's place in a list biases its score.

The search's order stays a prior: a text must beat those ranked above it by `PLACE_COST` nats a place, and only the
winner moves (to first); the rest keep the search's order. When it is asked is the retriever's business
(`retriever._judged` and `search`): only for a question that asks which text, and not when the passages and the
cards agree on the first.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from prompts import load_prompt
from tools.passages import clip
from tools.search.windows import rank_windows
from tools.verification.judge import TokenScorer, chatml

log = logging.getLogger(__name__)

SEARCH_TEXTS = 3  # the search's first texts the model reads
CARD_TEXTS = 2  # and the cards' first, when the search did not put them there
LINE_CHARS = 240  # of each text's best lines
BLURB_CHARS = 200
PLACE_COST = 2.0  # nats a text must gain over the one ranked a place above it (fitted on the dev files' even lines)
# the system line the embedded provider sends when a conversation has none, as when the rule was measured
SYSTEM = "You are a helpful assistant."


@dataclass
class Verdict:
    """The candidates in the order they were judged (the search's, then the cards'), the log-likelihood of the
    question after each, and the one put first."""

    doc_ids: list[str]
    scores: list[float]
    winner: str

    @property
    def moved(self) -> bool:
        return bool(self.doc_ids) and self.winner != self.doc_ids[0]


class TextJudge:
    def __init__(self, scorer: TokenScorer, place_cost: float = PLACE_COST):
        self.scorer = scorer
        self.place_cost = place_cost

    def describe(self, library, question: str, doc_id: str) -> str:
        """What the model reads of a text: its title, SuttaCentral's blurb, and its lines that best match."""
        doc = library.docstore.document(doc_id)
        if doc is None:
            return ""
        head = doc.title or doc.sutta_id or doc_id
        if doc.blurb and doc.blurb.strip():
            head += f" ({clip(doc.blurb.strip(), BLURB_CHARS)})"
        windows = rank_windows(library, library.evidence, question, [doc_id], limit=1)
        lines = clip(" ".join(windows[0].text.replace("<j>", " ").split()), LINE_CHARS) if windows else ""
        return load_prompt("text_question", text=head, lines=lines).strip()

    def judge(self, library, question: str, candidates: list[str], places: list[int]) -> Verdict | None:
        """The candidate the question is likeliest about, the search's order counting `place_cost` a place
        (`places`: each candidate's place in it, a card's after the texts read). None when the model fails."""
        scores = []
        try:
            for doc_id in candidates:
                prompt = chatml(SYSTEM, self.describe(library, question, doc_id))
                tokens = self.scorer.continuation_logprobs(prompt, question)
                scores.append(round(sum(lp for _, lp in tokens), 3))
        except Exception as exc:  # the search's own order stands when the model cannot score
            log.warning("text judge could not score: %s", exc)
            return None
        best = max(range(len(candidates)), key=lambda i: (scores[i] - self.place_cost * places[i], -places[i]))
        return Verdict(candidates, scores, candidates[best])


def candidates(search_docs: list[str], card_docs: list[str]) -> tuple[list[str], list[int]]:
    """The texts the model reads — the search's first, then the cards' first it did not already have — and each
    one's place (a card's counts as the place after the search's)."""
    first = search_docs[:SEARCH_TEXTS]
    extra = [d for d in card_docs[:CARD_TEXTS] if d not in first]
    return first + extra, list(range(len(first))) + [len(first)] * len(extra)
