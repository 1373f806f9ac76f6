"""More drafts of the same lines, sampled, and the one the model's drafts most agree on tried first.

When none of the model's sentences stood, its first reply was its likeliest wording, not its only one: sampled
again at a higher temperature from the same prompt, a 1.5B model often says what its near-greedy reply missed
(asked what Sāriputta said he felt, three of four samples said "my head does hurt a little" where the first reply
said "impressive" and "amazing"). Which sample to believe is decided by agreement, not by a rule about the
question: what most replies say (self-consistency, Wang et al. 2023) is likelier what the lines say, and a
reply that agrees with no other is likelier a slip. Each sample still goes through all the checks; agreement
only decides the order in which they are tried.
"""

from __future__ import annotations

from chat.pipeline.say import Said
from tools.verification.evidence import claim_tokens


def _added(text: str, asked: set[str]) -> set[str]:
    return set(claim_tokens(text)) - asked


def _overlap(words: set[str], reply: list[set[str]]) -> float:
    return max((len(words & w) / len(words | w) for w in reply if w), default=0.0)


def seconded(candidate: list[Said], others: list[list[Said]], question: str) -> list[Said]:
    """The sentences of `candidate` that some other reply also says something of: a sentence sharing none of the
    words it adds to the question with any sentence of any other reply is a slip of that one sample ("Gotama, when
    they were extinguishing a fire that was burning in front of him", where every other reply spoke of the fire's
    direction or its fuel)."""
    asked = set(claim_tokens(question))
    votes = [[_added(s.text, asked) for s in reply] for reply in others]
    return [s for s in candidate if any(_overlap(_added(s.text, asked), reply) > 0 for reply in votes)]


def agreement(candidate: list[Said], others: list[list[Said]], question: str) -> float:
    """How much the other replies say what `candidate` says: for each of its sentences, the best overlap (Jaccard
    over the words it adds to the question) with any sentence of each other reply, summed over those replies, then
    averaged over its sentences. 0.0 for a reply with no words of its own."""
    asked = set(claim_tokens(question))
    own = [w for w in (_added(s.text, asked) for s in candidate) if w]
    if not own:
        return 0.0
    votes = [[_added(s.text, asked) for s in reply] for reply in others]
    return sum(_overlap(words, reply) for words in own for reply in votes) / len(own)


def by_agreement(candidates: list[list[Said]], voters: list[list[Said]], question: str) -> list[list[Said]]:
    """The `candidates`, each of its sentences that another reply seconds (`seconded`), most agreed with first (by
    the other candidates and the `voters`, the replies already tried); ties keep the sampling order, and a
    candidate left with no sentence goes."""
    scored = []
    for i, candidate in enumerate(candidates):
        others = [c for j, c in enumerate(candidates) if j != i] + voters
        kept = seconded(candidate, others, question)
        if kept:
            scored.append((-agreement(kept, others, question), i, kept))
    return [c for _, _, c in sorted(scored, key=lambda x: (x[0], x[1]))]
