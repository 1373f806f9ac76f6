"""Select, then say: before the model writes, pick the lines that answer the question.

Retrieval hands over a few windows ranked by shared words and closeness in meaning; the lines that answer are
often another window of the same text (the simile itself, not the list of similes that names it; the five ways,
not two of them). Here, before the answer is written:

1. candidates: the turn's numbered evidence, and, when one long text leads, more of its sections (rank_windows
   over that text alone) and the items of a list it sets out section by section (`shapes.parallel_sections`);
2. scores: each candidate's retrieval score plus credit for the structure the question asks for
   (`shapes.shape_credit`: a simile's application, a list's items, a rule's formulation, who can or cannot);
3. the model as a selector (optional): shown the best candidates numbered, held by a grammar to reply with the
   numbers of those that answer ("2,5") or "none"; a 1.5B model chooses among numbered lines far better than it
   writes. Its picks lead; "none" never declines the question, it only leaves the scores to decide;
4. the premise: a line that contradicts what the question takes for granted (`premise.check_premise`).

The Scholar quotes the selection as the key lines, tells the model which numbers answer (with the text of any
line its tool results did not show), and opens the answer with the premise note.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from chat.pipeline.compose import key_windows
from chat.pipeline.premise import Premise, check_premise
from indexing.vocabulary import is_heading, section_of, segment_key
from prompts import load_prompt
from tools.function_tools import CanonTools, ToolResult, render_evidence
from tools.language.reasons import gives_reason
from tools.language.sentences import applies_a_simile, question_parts, says_what_a_simile_means
from tools.language.speakers import replier
from tools.language.words import words
from tools.passages import clip
from tools.search.shapes import Shape, parallel_sections, shape_credit, shape_of
from tools.search.windows import EvidenceWindow, make_window, question_words, rank_windows
from tools.turn import TraceEntry, TurnRecorder

log = logging.getLogger(__name__)

MEANING_FLOOR = 0.5  # a simile told or applied leads a meaning question when it scores this share of the best
SHAPE_WEIGHT = 0.3  # added to a window's retrieval score (about 0.5-2) for the structure the question asks for
SECTION_WINDOWS = 6  # more windows read from the leading text when it is long
SHAPE_SCAN = 30  # windows of the leading text searched for the structure the question asks for
SHAPED_WINDOWS = 2  # of those, at most this many more candidates
SHAPED_FLOOR = 0.8  # share of the leading text's best window score such a candidate must have
LONG_TEXT = 40  # segments: a text this long has sections the first windows may have missed
REASON_REACH = 6  # segments after the leading window read for the reason a "why" question asks
REPLY_REACH = 8  # segments after a request read for the reply a "how did X answer" question asks
REPLY_LINES = 8  # lines of that reply joined at most
MEANING_REACH = 30  # segments after a simile told read for the line that applies it, within its section: a story may
# run on for twenty lines before it is applied (MN 107's road to Rājagaha, told at 14.6, applied at 14.29)
MEANING_LINES = 4  # lines of that line's paragraph joined at most
REPEAT_SHARE = 0.8  # words two texts' windows share (of all either has) to be one passage said twice
GAP_LINES = 3  # lines between two chosen windows of one text read with them
JOIN_CHARS = 700  # windows that meet are read as one up to this length (a line as the say prompt shows it)
SHOWN_TO_MODEL = 6  # candidates the selector sees
CANDIDATE_CHARS = 280
MAX_PICKS = 3
MAX_ITEMS = 6  # lines quoted at most for a list: the best line and the items
SELECT_MAX_TOKENS = 12
UNSEEN_CHARS = 320  # a line the tool results did not show, as the model is told it
MAIN_WORD = 0.5  # a question's main words weigh at least this share of its heaviest (IDF)


@dataclass
class ModelCall:
    """One call to the model, as the trace records it."""

    name: str
    seconds: float
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    reply: str = ""

    def summary(self) -> str:
        tokens = ""
        if self.prompt_tokens is not None:
            tokens = f", {self.prompt_tokens} prompt and {self.output_tokens} output tokens"
        return f"{self.name}: {self.seconds:.1f} s{tokens}"


@dataclass
class Selection:
    """The lines chosen to answer, best first (in reading order when they are of one text), with their numbers."""

    chosen: list[EvidenceWindow] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    how: str = "none"  # "model", "scores", "items" or "none"
    premise: Premise | None = None
    unseen: list[int] = field(default_factory=list)  # chosen numbers no tool result showed the model
    calls: list[ModelCall] = field(default_factory=list)

    def hint(self, recorder: TurnRecorder) -> str:
        """What the model is told before it writes: which numbered lines answer (the text of those it has not
        seen), and the premise to correct."""
        if not self.numbers:
            return ""
        marks = [f"[{n}]" for n in self.numbers]
        refs = marks[0] if len(marks) == 1 else f"{', '.join(marks[:-1])} and {marks[-1]}"
        lines = [f"The lines that answer the question are {refs}; write from them and cite them."]
        for n in self.unseen:
            if (w := recorder.cited(n)) is not None:
                lines.append(f"[{n}] {w.ref} ({w.title}): {clip(w.text, UNSEEN_CHARS)}")
        if self.premise is not None:
            number = next((n for n, w in enumerate(recorder.evidence, 1) if w.overlaps(self.premise.window)), None)
            lines.append(self.premise.hint(number))
        return "\n".join(lines)

    def lead_text(self) -> str:
        """The premise note that opens the answer, or ""."""
        return self.premise.note() if self.premise is not None else ""

    def to_dict(self) -> dict:
        return {"numbers": self.numbers, "refs": [w.ref for w in self.chosen], "how": self.how,
                "premise": self.premise.to_dict() if self.premise else None,
                "calls": [dataclasses.asdict(c) for c in self.calls]}


async def select_lines(llm, canon: CanonTools, question: str, *, use_model: bool = True,
                       scope: Sequence[str] = ()) -> Selection:
    """The lines among the turn's evidence (and the leading text's other sections) that answer `question`; the
    lines it adds are numbered and recorded through `canon`. `scope`: the documents of the texts a follow-up
    points back at ("What does it say about …?"), when other texts were searched beside them."""
    library, recorder = canon.library, canon.recorder
    if not recorder.evidence:
        return Selection()
    started = time.perf_counter()
    shown = len(recorder.evidence)  # numbers up to here are in the tool results the model reads
    shape = shape_of(question)
    items = await asyncio.to_thread(_more_candidates, canon, question, shape)
    ranked = _unrepeated(_within_scope(library.evidence, _ranked(recorder.evidence, shape), question, scope))
    selection = Selection(how="scores")
    if items:
        # the best line leads (it may be the question's other half: "what is a mirror for"), then the items
        best = ranked[0]
        chosen = [best, *_spread([w for w in items if not w.overlaps(best)], MAX_ITEMS - 1)]
        chosen.sort(key=lambda w: (w.doc_id != best.doc_id, segment_key(w.seg_ids[0])))
        selection.how = "items"
    else:
        chosen = _best(ranked, shape)
        # only a model held to the grammar: free text from a small model is no reliable list of numbers
        if use_model and hasattr(llm, "with_grammar") and len(ranked) > 1:
            picks, call = await _ask_model(llm, question, ranked[:SHOWN_TO_MODEL])
            selection.calls.append(call)
            if picks:
                chosen = picks
                selection.how = "model"
        if len({w.doc_id for w in chosen}) == 1:
            chosen = sorted(chosen, key=lambda w: segment_key(w.seg_ids[0]))
    chosen = await asyncio.to_thread(_each_part_answered, library, question, chosen, ranked)
    if shape.reason:
        chosen = _reason_given(library.evidence, chosen)
    elif shape.meaning:
        chosen = _meaning_given(library.evidence, chosen)
    elif (who := replier(question)) is not None:
        chosen = _reply_given(library.evidence, chosen, who)
    selection.premise = check_premise(question, ranked[:SHOWN_TO_MODEL], weights=library.evidence.weights,
                                      renderings=_renderings(library))
    if selection.premise is not None and not any(w.overlaps(selection.premise.window) for w in chosen):
        chosen = [selection.premise.window, *chosen[:1]]  # the line that corrects it, and the best other
    selection.chosen = chosen = _one_where_they_meet(library.evidence, _gaps_filled(library.evidence, chosen))
    selection.numbers = canon.show(chosen)
    selection.unseen = [n for n in selection.numbers if n > shown]
    if selection.calls or selection.premise is not None:  # a step worth showing: the model asked, a premise found
        _record(recorder, question, selection, time.perf_counter() - started)
    return selection


def _unrepeated(ranked: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """The windows less those that repeat a better one of another text nearly word for word (`REPEAT_SHARE` of
    their words in common): the canon says a passage in several books (Snp 1.8 and Kp 9, DN 16 and SN 6.15), and
    the same lines twice leave no room for the lines that answer beside them ("Even as a mother would protect …"
    after the verses that share the question's words)."""
    kept: list[tuple[EvidenceWindow, set[str]]] = []
    for window in ranked:
        own = set(words(window.text))
        if not any(other.doc_id != window.doc_id and own and len(own & held) >= REPEAT_SHARE * len(own | held)
                   for other, held in kept):
            kept.append((window, own))
    return [w for w, _ in kept]


def _within_scope(index, ranked: list[EvidenceWindow], question: str,
                  scope: Sequence[str]) -> list[EvidenceWindow]:
    """Asked what "it" says, the reader asks about the text in scope: its lines are the candidates whenever one of
    them holds one of the question's main words (weighing at least `MAIN_WORD` of the heaviest), though a text
    searched beside it holds more of them (asked what the Kālāma discourse says about "relying on tradition", its
    "don't rely on logic" line, not a Sutta Nipāta verse that says "not relying on tradition"). Other texts' lines
    answer when the text in scope holds none of them ("Does it also speak of bandits with a two-handled saw?"
    after a text that only has "two" and "see")."""
    own = [w for w in ranked if w.doc_id in scope]
    if not own or len(own) == len(ranked):
        return ranked
    weights = index.weights(question_words(question))
    heaviest = max(weights.values(), default=0.0)
    main = {t for t, weight in weights.items() if weight >= MAIN_WORD * heaviest}
    return own if any(main & set(words(w.text)) for w in own) else ranked


def _each_part_answered(library, question: str, chosen: list[EvidenceWindow],
                        ranked: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """For a question that asks two things ("What is a mirror for, …, and what should Rāhula check in the same
    way?"), the lines that best answer each part, in the turn's leading text, join the chosen ones: windows
    ranked for the whole question lead with the part most of its words are about, and the other went unanswered
    (MN 61's mirror, two lines before the window on checking deeds). Only the leading text is searched: a part
    read alone ("who corrected him?") has lost its subject, and other texts answer it by chance. What a chosen
    window already holds is not added again; a part's window that runs into a chosen one adds only its own lines."""
    parts = [p for p in question_parts(question) if question_words(p)]
    if len(parts) < 2 or not chosen:
        return chosen
    docs = [ranked[0].doc_id] if ranked else [chosen[0].doc_id]
    out = list(chosen)
    for part in parts:
        found = rank_windows(library, library.evidence, part, docs, limit=1)
        # a window sharing none of the part's words was found by its place or its meaning alone
        if not found or not set(question_words(part)) & set(words(" ".join(found[0].texts))):
            continue
        rest = _outside(library.evidence, found[0], out)
        if rest is not None:
            out.append(rest)
    return _in_reading_order(out)


def _reason_given(index, chosen: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """Asked why, with no chosen line giving a reason: the lines after a chosen window (the first that has one),
    up to the first that gives one within `REASON_REACH` segments of its section, join the chosen ones. A story
    tells what happened and then why ("his spirits fell and his tears flowed" … "That's why I'm so upset"); what
    no reason follows so near is left as it is."""
    if not chosen or any(gives_reason(w.text) for w in chosen):
        return chosen
    for window in chosen:
        found = _read_on(index, window, REASON_REACH, lambda view, k: gives_reason(view.segments[k].en))
        if found is not None:
            view, end, k = found
            return _with(chosen, _outside(index, make_window(view, end + 1, k, window.score), chosen))
    return chosen


def _meaning_given(index, chosen: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """Asked what a simile means, with a chosen line telling one and none saying what it means: the first line
    within `MEANING_REACH` segments after it, in its section, that applies it ("This is how it is in the case of
    …", "In the same way …") joins the chosen ones, with the rest of its paragraph up to `MEANING_LINES`. The
    question repeats the simile's words ("the lump of salt"), so the search finds the simile; its meaning follows
    in other words."""
    if not chosen or any(says_what_a_simile_means(w.text) for w in chosen):
        return chosen
    for window in chosen:  # none says what it means: one that tells a simile, read on
        if applies_a_simile(window.text) and (found := _read_on(
                index, window, MEANING_REACH, lambda view, k: says_what_a_simile_means(view.segments[k].en))):
            break
    else:
        return chosen
    view, _, k = found
    section = section_of(view.segments[k].seg_id)
    last = _run_end(view, k, MEANING_LINES, lambda j: section_of(view.segments[j].seg_id) == section)
    return _in_reading_order(_with(chosen, _outside(index, make_window(view, k, last, window.score), chosen)))


def _reply_given(index, chosen: list[EvidenceWindow], who: str) -> list[EvidenceWindow]:
    """Asked how `who` answered: when the best chosen window (the request, whose words the question repeats) ends in
    someone else's words or in narration, and `who` speaks within `REPLY_REACH` segments after it in the same
    section, that reply joins the chosen lines, up to `REPLY_LINES` of it. "How did the Buddha answer Devadatta's
    five demands about living in the forest and not eating fish or meat?" finds the demands; the reply follows,
    without their words: "The Buddha replied, 'No, Devadatta. Those who wish may stay in the wilderness …'" (Kd 17).
    A reply the text gives no speaker is not guessed at."""
    if not chosen:
        return chosen
    request = max(chosen, key=lambda w: w.score)
    view = index.sutta(request.doc_id)
    speakers = index.speakers(view) if view is not None else []
    end = view.position.get(request.seg_ids[-1]) if view is not None else None
    if end is None or speakers[end] == who:
        return chosen
    found = _read_on(index, request, REPLY_REACH, lambda view, k: speakers[k] == who)
    if found is None:
        return chosen
    view, _, k = found
    last = _run_end(view, k, REPLY_LINES, lambda j: speakers[j] == who)
    return _in_reading_order(_with(chosen, _outside(index, make_window(view, k, last, request.score), chosen)))


def _read_on(index, window: EvidenceWindow, reach: int, wanted) -> tuple[Any, int, int] | None:
    """(the text, the window's last line, the line) of the first line within `reach` segments after `window`, in
    its section, for which `wanted(view, k)` holds; None when none does."""
    view = index.sutta(window.doc_id)
    end = view.position.get(window.seg_ids[-1]) if view is not None else None
    if end is None:
        return None
    for k in range(end + 1, min(end + 1 + reach, len(view.segments))):
        if is_heading(view.segments[k].seg_id):
            return None
        if wanted(view, k):
            return view, end, k
    return None


def _run_end(view, k: int, most: int, goes_on) -> int:
    """The last line of the run that starts at line `k` and goes on while `goes_on(j)` holds, `most` lines at most:
    the reply's speaker still speaking, the paragraph that applies a simile not yet over."""
    last = k
    while last + 1 < min(k + most, len(view.segments)) and goes_on(last + 1):
        last += 1
    return last


def _with(chosen: list[EvidenceWindow], rest: EvidenceWindow | None) -> list[EvidenceWindow]:
    return [*chosen, rest] if rest is not None else chosen


def _in_reading_order(chosen: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """Lines of one text in the text's order: a request before its reply, a simile before what it means."""
    if len({w.doc_id for w in chosen}) == 1:
        return sorted(chosen, key=lambda w: segment_key(w.seg_ids[0]))
    return chosen


def _gaps_filled(index, chosen: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """The lines between two chosen windows of one text, when no more than `GAP_LINES` and no heading lie between
    them, join the chosen ones: the passage runs on through them, and they may be what answers. Asked what reason
    Sahampati gave, the windows that share the question's words were his thought before (MN 85:44.1–44.3) and his
    verses after (44.7–44.19); between them he says it: "There are beings with little dust in their eyes" (44.6)."""
    out = list(chosen)
    by_text: dict[str, list[tuple[int, int]]] = {}
    for window in chosen:
        view = index.sutta(window.doc_id)
        lo = view.position.get(window.seg_ids[0]) if view is not None else None
        hi = view.position.get(window.seg_ids[-1]) if view is not None else None
        if lo is not None and hi is not None:
            by_text.setdefault(window.doc_id, []).append((lo, hi))
    for doc_id, spans in by_text.items():
        view = index.sutta(doc_id)
        spans.sort()
        for (_, end), (start, _) in zip(spans, spans[1:]):
            gap = range(end + 1, start)
            if 0 < len(gap) <= GAP_LINES and not any(is_heading(view.segments[k].seg_id) for k in gap):
                score = min(w.score for w in chosen if w.doc_id == doc_id)
                out.append(make_window(view, gap[0], gap[-1], score))
    return _in_reading_order(out) if len(out) > len(chosen) else chosen


def _one_where_they_meet(index, chosen: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """Windows of one text that meet (one ends where the next begins) as one window, where the first of them was,
    when together they are no longer than `JOIN_CHARS`. Apart, a question and its answer read as two lines, the
    answer first when it was found first: "[1] All sentient beings are sustained by food. What is the two? Name and
    form. …" and "[3] What is the one?" (Kp 4), from which the model could not tell what "the one" is. Longer, the
    line the model reads is cut, and loses what the windows apart showed (Iti 42's "like goats and sheep")."""
    out: list[EvidenceWindow] = []
    for window in chosen:
        view = index.sutta(window.doc_id)
        lo = view.position.get(window.seg_ids[0]) if view is not None else None
        hi = view.position.get(window.seg_ids[-1]) if view is not None else None
        for k, other in enumerate(out):
            if view is None or lo is None or hi is None or other.doc_id != window.doc_id:
                continue
            a, b = view.position.get(other.seg_ids[0]), view.position.get(other.seg_ids[-1])
            if a is None or b is None or not (a == hi + 1 or lo == b + 1):
                continue
            joined = make_window(view, min(a, lo), max(b, hi), max(other.score, window.score))
            if len(joined.text) <= JOIN_CHARS:
                out[k] = joined
                break
        else:
            out.append(window)
    return out


def _outside(index, window: EvidenceWindow, chosen: list[EvidenceWindow]) -> EvidenceWindow | None:
    """`window`'s lines that no chosen window holds, as a window (the longer run when they lie on both sides of one);
    None when all are held."""
    held = {s for c in chosen if c.doc_id == window.doc_id for s in c.seg_ids}
    view = index.sutta(window.doc_id)
    if view is None:
        return None
    runs: list[list[int]] = []
    for seg_id in window.seg_ids:
        if seg_id in held or seg_id not in view.position:
            runs.append([])
            continue
        if not runs or not runs[-1]:
            runs.append([])
        runs[-1].append(view.position[seg_id])
    best = max(runs, key=len, default=[])
    if not best or all(is_heading(view.segments[i].seg_id) for i in best):
        return None
    return make_window(view, best[0], best[-1], window.score)


def _spread(items: list[EvidenceWindow], n: int) -> list[EvidenceWindow]:
    """`n` of a list's items, evenly spread over it when it is longer: its range, not only its start."""
    if len(items) <= n:
        return items
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)] if n > 1 else items[:1]


def _best(ranked: list[EvidenceWindow], shape: Shape) -> list[EvidenceWindow]:
    """The key windows by score; asked what a simile means, when the best tells or applies one, a second that does
    not is only a line sharing the question's words, and is left out."""
    if shape.meaning and ranked:
        # asked what a simile means: the simile told or applied leads over lines that only name it, when it
        # scores at least half as well (MN 22's cobra against its list "... like a snake's head")
        told = [w for w in ranked if shape_credit(shape, w.text) > 0 and w.score >= MEANING_FLOOR * ranked[0].score]
        if told:
            ranked = told
    chosen = key_windows(ranked)
    if shape.meaning and ranked and shape_credit(shape, ranked[0].text) > 0:
        chosen = [w for w in chosen if w is ranked[0] or shape_credit(shape, w.text) > 0]
    # (only for a simile: "Who saw the monks playing in the river, which led to the rule ...?" needs the story's
    # line that names who saw them beside the rule's formulation)
    return chosen


def _ranked(evidence: list[EvidenceWindow], shape: Shape) -> list[EvidenceWindow]:
    """The evidence rescored for the question's shape, best first."""
    rescored = [dataclasses.replace(w, score=round(w.score + SHAPE_WEIGHT * shape_credit(shape, w.text), 4))
                for w in evidence]
    return sorted(rescored, key=lambda w: -w.score)


def _more_candidates(canon: CanonTools, question: str, shape: Shape) -> list[EvidenceWindow]:
    """Numbers more windows of the leading text when it is long; returns the items of a list it sets out over
    parallel sections, when the question asks for a list and the evidence falls in them ([] otherwise)."""
    library, recorder = canon.library, canon.recorder
    lead = recorder.evidence[0]
    view = library.evidence.sutta(lead.doc_id)
    if view is None or len(view.segments) < LONG_TEXT:
        return []
    scan = SHAPE_SCAN if shape.any else SECTION_WINDOWS
    ranked = rank_windows(library, library.evidence, question, [lead.doc_id], limit=scan, per_text=scan)
    more = ranked[:SECTION_WINDOWS] + _shaped(ranked, SECTION_WINDOWS, shape)
    canon.show([w for w in more if not any(w.overlaps(e) for e in recorder.evidence)])
    if not shape.items:
        return []
    return _list_items(view, recorder.evidence[:2])


def _shaped(ranked: list[EvidenceWindow], first: int, shape: Shape) -> list[EvidenceWindow]:
    """Of a long text's windows, best first, those past the `first` that have the structure the question asks for
    and score at least SHAPED_FLOOR of the best: asked what Pāyāsi believed, DN 23's "had the following harmful
    misconception: “There is no afterlife …”" ranks seventh among its windows, below six that repeat "afterlife"
    and "believe"."""
    if not ranked or not shape.any:
        return []
    floor = SHAPED_FLOOR * ranked[0].score
    return [w for w in ranked[first:] if w.score >= floor and shape_credit(shape, w.text) > 0][:SHAPED_WINDOWS]


def _list_items(view, evidence: list[EvidenceWindow]) -> list[EvidenceWindow]:
    """The opening lines of the parallel sections a list is set out in, when the best evidence lies in them."""
    sections: dict[str, list[int]] = {}
    for i, seg in enumerate(view.segments):
        if is_heading(seg.seg_id) or not seg.en.strip():
            continue
        local = seg.seg_id.partition(":")[2]
        sections.setdefault(section_of(local), []).append(i)
    keys = list(sections)
    run = parallel_sections([(k, view.segments[sections[k][0]].en) for k in keys])
    if not run:
        return []
    inside = {view.segments[i].seg_id for k in (keys[r] for r in run) for i in sections[k]}
    if not any(s in inside for w in evidence if w.doc_id == view.doc.doc_id for s in w.seg_ids):
        return []
    out = []
    for k in (keys[r] for r in run):
        first = sections[k][0]
        last = first + 1 if len(view.segments[first].en) < 80 and first + 1 in sections[k] else first
        out.append(make_window(view, first, last, 0.0))
    return out


def select_grammar(n: int) -> str:
    """GBNF: "none", or up to MAX_PICKS distinct-looking numbers 1..n separated by commas."""
    numbers = " | ".join(f'"{i}"' for i in range(n, 0, -1))  # longer numbers first
    return f'root ::= "none" | num ("," num){{0,{MAX_PICKS - 1}}}\nnum ::= {numbers}\n'


def parse_picks(reply: str, n: int) -> list[int]:
    out: list[int] = []
    for m in re.findall(r"\d+", reply):
        k = int(m)
        if 1 <= k <= n and k not in out:
            out.append(k)
    return out[:MAX_PICKS]


async def _ask_model(llm, question: str, candidates: list[EvidenceWindow]) -> tuple[list[EvidenceWindow], ModelCall]:
    """The candidates the model says answer, in its order; [] for "none" or an unusable reply."""
    from chat.pipeline.agent import with_max_tokens

    listing = "\n".join(f"{i}. ({w.source}) {clip(' '.join(w.text.replace('<j>', ' ').split()), CANDIDATE_CHARS)}"
                        for i, w in enumerate(candidates, 1))
    prompt = load_prompt("select", question=question, candidates=listing)
    grammar = select_grammar(len(candidates))
    bound = cast(Any, with_max_tokens(llm, SELECT_MAX_TOKENS, lower=True)).with_grammar(lambda: grammar)
    started = time.perf_counter()
    reply = ""
    try:
        response = await bound.achat([ChatMessage(role=MessageRole.USER, content=prompt)])
        reply = response.message.content or ""
    except Exception as exc:  # the scores still choose: a failed selector costs only its time
        log.info("selector call failed: %s", exc)
    stats = getattr(bound, "last_stats", None)
    call = ModelCall("select", round(time.perf_counter() - started, 3),
                     getattr(stats, "prompt_tokens", None), getattr(stats, "completion_tokens", None), reply.strip())
    picks = parse_picks(reply, len(candidates))
    return [candidates[k - 1] for k in picks], call


def _renderings(library):
    bridges = getattr(library, "bridges", None)
    if bridges is None:
        return None

    def pairs(text: str):
        try:
            return bridges.apply(text).pairs
        except Exception as exc:  # a bridge table that fails costs the premise check its synonyms only
            log.debug("bridges failed on %r: %s", text, exc)
            return []
    return pairs


def _record(recorder: TurnRecorder, question: str, selection: Selection, seconds: float) -> None:
    """The selection as a step of the turn's trace, with its model call's tokens and seconds."""
    refs = ", ".join(w.ref for w in selection.chosen) or "nothing"
    summary = f"chose {refs} ({selection.how})"
    if selection.premise is not None:
        summary += f"; the premise is contradicted by {selection.premise.ref}"
    summary += "".join(f"; {c.summary()}" for c in selection.calls)
    recorder.trace.append(TraceEntry(tool="select_lines", input={"question": question}, output_summary=summary,
                                     duration_ms=seconds * 1000, output=selection.to_dict()))


def with_premise(answer, selection: Selection, docstore, explained: str) -> str:
    """The answer opened by the premise note (in place, with the line it cites among its citations); returns what
    the turn explained in its own words, the note included (what memory and follow-ups build on)."""
    note = selection.lead_text()
    if not note or answer.status == "failed" or selection.premise is None:
        return explained
    from chat.pipeline.answer import AnswerSentence
    from chat.pipeline.checks import window_citations
    from tools.references import strip_citations

    if answer.status == "abstained":
        # the note answers: the texts say otherwise. "I don't find this …" after it would take back what it shows
        answer.answer, answer.status, answer.sentences = note, "answered", []
    else:
        answer.answer = f"{note}\n\n{answer.answer}"
    # the note is the answer's own sentence (it says what the line shows), not a quotation of the passage
    answer.sentences = [AnswerSentence(text=strip_citations(note), origin="model", citations=[selection.premise.ref]),
                        *answer.sentences]
    if not any(c.ref == selection.premise.ref for c in answer.citations):
        answer.citations = [*window_citations(docstore, [selection.premise.window]), *answer.citations]
    return f"{note} {explained}".strip()


Step = TypeVar("Step")
_EVIDENCE_LINE = re.compile(r"^\[\d+\] ")


def focused(done: list[tuple[Step, ToolResult]], selection: Selection, recorder: TurnRecorder
            ) -> list[tuple[Step, ToolResult]]:
    """The planned calls' results as the model reads them, holding only the selected lines (under their turn
    numbers, in the first result that showed evidence): the model says what those lines say, not what a line
    that only shares the question's words says. Other lines of the results (a text's header) stay."""
    if not selection.numbers:
        return done
    chosen = sorted((n, w) for n in dict.fromkeys(selection.numbers) if (w := recorder.cited(n)) is not None)
    out: list[tuple[Step, ToolResult]] = []
    placed = False
    for step, result in done:
        if not result.evidence:
            out.append((step, result))
            continue
        head = "\n".join(line for line in result.text.splitlines() if not _EVIDENCE_LINE.match(line))
        body = "" if placed else render_evidence(chosen)
        text = f"{head}\n{body}".strip() or "The lines that answer are in the result above."
        out.append((step, dataclasses.replace(result, text=text, evidence=[] if placed else chosen)))
        placed = True
    if placed:
        selection.unseen = []  # the model reads them in the results now
    return out
