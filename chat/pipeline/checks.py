"""The checking passes of a Draft (chat/pipeline/draft.py): references mapped to the turn's passages, every
sentence judged by the verifier in one call (an uncited one given the reference that holds it), ranges narrowed to
the segment that holds the claim, and what the texts do not hold cut to the clause they do or removed.

The reader never sees a half-repaired fragment: a sentence stands, is cut to what its passage holds, or goes, and
each one that did not stand is listed in the answer's `unsupported_claims` with a plain reason. The verifier
(tools.verification.verifier) decides what a passage supports.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from chat.pipeline.answer import Citation, ClaimVerdict, renderings
from chat.pipeline.draft import Draft, Line, Reason, Status, explain, with_refs
from indexing.stores.docstore import DocStore
from indexing.vocabulary import segment_distance, segment_key, sutta_id_to_uid, unit_id
from tools.language.sentences import Sentence
from tools.language.words import word_list, word_set
from tools.passages import Passage, clip
from tools.references import CitationRef, find_citations
from tools.search.windows import EvidenceWindow
from tools.turn import TurnRecorder
from tools.verification.verifier import Finding, Verdict, VerificationReport

log = logging.getLogger(__name__)


# ---- mapping references to passages ---------------------------------------------------------------------------
@dataclass
class CitationMap:
    passages: list[Passage]
    docstore: DocStore
    _by_sutta: dict[str, list[Passage]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for p in self.passages:
            if p.sutta_id:
                self._by_sutta.setdefault(p.sutta_id.lower(), []).append(p)

    def suttas(self) -> list[str]:
        return list(dict.fromkeys(p.sutta_id for p in self.passages if p.sutta_id))

    def _candidates(self, ref: CitationRef) -> list[Passage]:
        if ref.is_document:  # a Markdown note or a PDF, by its title
            return [p for p in self.passages if not p.sutta_id and ref.names_document(p.title)]
        if not ref.sutta_id:
            return []
        hits = self._by_sutta.get(ref.sutta_id.lower(), [])
        if hits:
            return hits
        try:  # SN 12.110 cited from the range document sn12.104-114
            uid = sutta_id_to_uid(ref.sutta_id)
        except ValueError:
            return []
        return [p for p in self.passages if p.doc_id == uid]

    def passage_for(self, ref: CitationRef) -> Passage | None:
        """The retrieved passage a reference points into, or None if the turn retrieved nothing there."""
        candidates = self._candidates(ref)
        if not candidates:
            return None
        if ref.is_document:
            return self._document_passage(ref, candidates)
        seg = ref.seg_start
        if not seg:
            return max(candidates, key=lambda p: p.scores.get("final", 0.0))
        doc_id = candidates[0].doc_id
        key = segment_key(f"{doc_id}:{seg}")
        for p in candidates:
            if p.segment_start and p.segment_end and \
                    segment_key(p.segment_start) <= key <= segment_key(p.segment_end):
                return p
        # A segment of a retrieved sutta outside the retrieved chunks: fine if it exists (a lookup shows whole
        # openings); cite it against the nearest retrieved passage of that sutta.
        if self.docstore.segment(f"{doc_id}:{seg}") is None:
            return None
        return min(candidates, key=lambda p: segment_distance(p.segment_start or "", seg))

    def _document_passage(self, ref: CitationRef, candidates: list[Passage]) -> Passage | None:
        """The passage of a document holding the cited place (a chunk is its units' texts joined), else its best
        passage; None when no document of that title has the place."""
        ranked = sorted(candidates, key=lambda p: -p.scores.get("final", 0.0))
        for doc_id in dict.fromkeys(p.doc_id for p in ranked):
            units = self.units(doc_id, ref)
            if not units:
                continue
            mine = [p for p in ranked if p.doc_id == doc_id]
            return next((p for p in mine if any(u.en.strip() and u.en.strip() in p.text for u in units)), mine[0])
        return None

    def units(self, doc_id: str, ref: CitationRef):
        """The units of a document at the place a reference names (all of them for a bare title)."""
        return [s for s in self.docstore.segments(doc_id) if s.en and ref.covers(s.ord, s.page)]

    def citation(self, ref: CitationRef, passage: Passage) -> Citation:
        if ref.is_document:
            return self._document_citation(ref, passage)
        excerpt, pali = passage.text, passage.pali
        if ref.seg_start:
            segs = self._segments(passage.doc_id, ref.seg_start, ref.seg_end or ref.seg_start)
            if segs:
                excerpt = " ".join(s.en.strip() for s in segs)
                pali = " ".join(s.pali.strip() for s in segs if s.pali)
        uid = passage.doc_id.partition("@")[0]  # another translation's segments carry the text's own IDs
        start = f"{uid}:{ref.seg_start}" if ref.seg_start else passage.segment_start
        end = f"{uid}:{ref.seg_end or ref.seg_start}" if ref.seg_start else passage.segment_end
        return Citation(
            ref=ref.raw,
            sutta_id=ref.sutta_id,
            title=passage.title,
            excerpt=clip(excerpt, 500),
            pali=clip(pali, 500),
            score=round(passage.scores.get("final", passage.scores.get("fused", 0.0)), 4),
            chunk_id=passage.chunk_id,
            segment_start=start,
            segment_end=end,
            translator=passage.translator,
            alternatives=renderings(passage, self.docstore, start, end),
        )

    def _document_citation(self, ref: CitationRef, passage: Passage) -> Citation:
        """A note's or a PDF's place: its units' text (a page's blocks: the cited passage when it is on that page),
        the first and last unit as segment IDs (the side panel marks them), the page."""
        units = self.units(passage.doc_id, ref) if ref.place else []
        excerpt = " ".join(u.en.strip() for u in units[:6]) or passage.text
        if ref.by_page and passage.page is not None and ref.covers(0, passage.page):
            excerpt = passage.text
        start = unit_id(passage.doc_id, units[0].ord) if units else None
        end = unit_id(passage.doc_id, units[-1].ord) if units else None
        page = units[0].page if units else passage.page
        return Citation(ref=ref.display(), sutta_id=None, title=passage.title, excerpt=clip(excerpt, 500),
                        score=round(passage.scores.get("final", passage.scores.get("fused", 0.0)), 4),
                        chunk_id=passage.chunk_id, segment_start=start, segment_end=end, page=page)

    def _segments(self, doc_id: str, start: str, end: str):
        lo, hi = segment_key(f"{doc_id}:{start}"), segment_key(f"{doc_id}:{end}")
        return [s for s in self.docstore.segments(doc_id) if s.seg_id and lo <= segment_key(s.seg_id) <= hi][:6]


def drop_unretrieved(draft: Draft, cmap: CitationMap) -> tuple[Draft, list[str]]:
    """Without references that point to nothing retrieved in this turn; returns the draft and the dropped refs."""
    dropped: list[str] = []

    def retrieved(_: int, ref: CitationRef) -> CitationRef | None:
        if ref.ok and cmap.passage_for(ref) is not None:
            return replace(ref, raw=ref.display())
        dropped.append(ref.raw)
        return None

    return draft.map(lambda _, line: line.map_refs(retrieved)), dropped


# ---- the verifier's judgement ----------------------------------------------------------------------------------
Verify = Callable[[list[Sentence], list[str]], VerificationReport]

_REASONS = {Finding.NO_CITATION: Reason.UNCITED, Finding.BAD_CITATION: Reason.BAD_CITATION,
            Finding.NOT_IN_TEXT: Reason.NOT_IN_TEXT, Finding.FOUND_ELSEWHERE: Reason.FOUND_ELSEWHERE,
            Finding.NAME_DIFFERS: Reason.NAME_DIFFERS, Finding.NUMBER_DIFFERS: Reason.NUMBER_DIFFERS,
            Finding.NEGATED: Reason.NEGATED, Finding.MISQUOTED: Reason.MISQUOTED, Finding.JUDGED: Reason.JUDGED,
            Finding.POINTER_IDLE: Reason.POINTER_IDLE, Finding.TABLE_DIFFERS: Reason.NOT_IN_TEXT,
            Finding.REASON_UNSTATED: Reason.REASON_UNSTATED,
            Finding.INSTRUCTION_UNSTATED: Reason.INSTRUCTION_UNSTATED, Finding.VIEW_UNSTATED: Reason.VIEW_UNSTATED,
            Finding.SPEAKER_DIFFERS: Reason.SPEAKER_DIFFERS,
            Finding.WORDS_GIVEN_TO_ANOTHER: Reason.WORDS_GIVEN_TO_ANOTHER,
            Finding.DOER_DIFFERS: Reason.DOER_DIFFERS, Finding.OTHER_SIDE: Reason.OTHER_SIDE,
            Finding.LIKENED_APART: Reason.LIKENED_APART, Finding.IDENTITY_UNSTATED: Reason.IDENTITY_UNSTATED,
            Finding.SUPPORTED: Reason.NOT_IN_TEXT}


# What only a whole sentence can be found to do: give a reason, advice, a view or words to someone
_WHOLE_SENTENCE = {Finding.REASON_UNSTATED, Finding.INSTRUCTION_UNSTATED, Finding.VIEW_UNSTATED,
                   Finding.SPEAKER_DIFFERS, Finding.WORDS_GIVEN_TO_ANOTHER, Finding.DOER_DIFFERS,
                   Finding.OTHER_SIDE, Finding.LIKENED_APART, Finding.IDENTITY_UNSTATED}


@dataclass
class Checked:
    draft: Draft
    confidence: float
    narrowed: int = 0
    cited: int = 0  # uncited sentences given the reference that holds them


def check(draft: Draft, verify: Verify, cite_from: list[str]) -> Checked:
    """Every standing sentence of the answer's own judged in one call of the verifier; each verdict applied to its
    sentence. A partly supported sentence loses the clause no passage holds; any other sentence that fails goes
    whole. It is not replaced by a quotation: the passages' own words are already quoted above the answer, and a
    spliced quote of the nearest lines reads as debris."""
    own = [i for i, line in enumerate(draft.lines) if line.stands and line.origin == "model"]
    report = verify([draft.lines[i].sentence() for i in own], cite_from)
    lines = list(draft.lines)
    narrowed = cited = 0
    for v in report.verdicts:
        if not 0 <= v.index < len(own):
            continue
        at = own[v.index]
        line = _judged(lines[at], v)
        if v.cited_to and line.stands:
            line, cited = _cited_to(line, v.cited_to), cited + 1
        if line.stands and line.status is Status.STANDS and v.verdict == "supported" and v.evidence_ref:
            if (sharper := _narrowed(line.citations, v.evidence_ref)) is not None:
                line, narrowed = line.map_refs(_replacing(*sharper)), narrowed + 1
        lines[at] = line
    _recheck_partly(lines, verify, cite_from)
    return Checked(draft.with_lines(lines), report.confidence, narrowed=narrowed, cited=cited)


def _recheck_partly(lines: list[Line], verify: Verify, cite_from: list[str]) -> None:
    """What is left of a partly supported sentence judged again, as the sentence it now is: the checks of a whole
    sentence (a reason given, a view or words given to someone) had read it with the clause that failed, and passed
    over it. "Aṅgulimāla stopped chasing the Buddha because he had laid aside violence towards all creatures" was
    left of a sentence whose last clause failed, and stood: it gives Aṅgulimāla the Buddha's words of himself. Goes
    when one of those checks finds against it."""
    partly = [at for at, line in enumerate(lines) if line.status is Status.REVISED and line.reason is Reason.PARTLY]
    if not partly:
        return
    for v in verify([lines[at].sentence() for at in partly], cite_from).verdicts:
        # only what was passed over: its clauses were each judged already, and under the narrower references of
        # what is left one of them can fail where it held ("Visakha asked … for eight favors: rainy-season robes,
        # alms …" lost that way)
        if 0 <= v.index < len(partly) and v.finding in _WHOLE_SENTENCE:
            at = partly[v.index]
            lines[at] = lines[at].removed(_REASONS[v.finding], detail=v.reason, verdict=v.verdict,
                                          evidence_ref=v.evidence_ref, score=v.score)


def _cited_to(line: Line, ref: str) -> Line:
    """The line cited to the reference that holds it: added to an uncited one; in place of a cited one's first
    reference (the others go), where its references named lines that do not hold it."""
    found = find_citations(f"[{ref}]")
    if not line.citations or not found:
        return line.cite([ref])
    new = replace(found[0], raw=found[0].display())
    return line.map_refs(lambda i, _: new if i == 0 else None)


def _holds(citations: list[CitationRef], ref: str) -> bool:
    """Whether one of the citations covers where `ref` starts (its text, whole or as a range of lines)."""
    found = find_citations(f"[{ref}]")
    if not found or not found[0].ok or not found[0].seg_start:
        return True  # nothing precise to compare with: the citation stands
    return any(c.ok and c.sutta_id == found[0].sutta_id and _starts_within(found[0], c) for c in citations)


def _starts_within(e: CitationRef, c: CitationRef) -> bool:
    """Whether `e` (a reference to lines) starts inside the lines `c` cites of the same text (all of it when `c`
    names no line)."""
    if not c.seg_start:
        return True
    uid = sutta_id_to_uid(e.sutta_id or "")
    at = segment_key(f"{uid}:{e.seg_start}")
    return segment_key(f"{uid}:{c.seg_start}") <= at <= segment_key(f"{uid}:{c.seg_end or c.seg_start}")


def _replacing(at: int, new: CitationRef) -> Callable[[int, CitationRef], CitationRef | None]:
    return lambda i, ref: new if i == at else ref


def _judged(line: Line, v: Verdict) -> Line:
    """A sentence as its verdict leaves it."""
    fields = dict(detail=v.reason, verdict=v.verdict, evidence_ref=v.evidence_ref, evidence_quote=v.evidence_quote,
                  score=v.score, idle=tuple(v.idle_citations), pointer=v.pointer)
    if v.pointer and v.idle_citations:
        idle = set(v.idle_citations)
        held = [c for c in line.citations if c.raw not in idle and c.ok]
        if not held:
            return line.removed(Reason.POINTER_IDLE, **fields)
        found = " and ".join(f"[{c.display()}]" for c in held)
        return line.revised(f"The same is found in {found}.", Reason.POINTER_IDLE, **fields)
    if v.idle_citations and v.verdict in ("supported", "partial"):
        idle = set(v.idle_citations)
        line = line.map_refs(lambda _, r: None if r.raw in idle else r)
    if v.verdict == "supported" and v.requoted:
        return line.revised(with_refs(v.requoted, line.refs), Reason.REQUOTED, **fields)
    if v.verdict == "supported" and v.verbatim:
        # a line the model copied word for word is a quotation, not the answer's own words, and says so; cited
        # where its words are, when the model gave it another line's number
        quoted = line.as_quotation()
        if v.quoted_from and not _holds(quoted.citations, v.quoted_from):
            return _cited_to(quoted, v.quoted_from)
        return quoted
    if v.verdict == "supported" or (v.verdict == "uncited" and v.cited_to):
        return line
    reason = _REASONS[v.finding]
    if v.verdict == "partial" and (kept := _without_unsupported_clauses(v)) is not None:
        return line.revised(kept, Reason.PARTLY, **fields)
    return line.removed(reason, **fields)


def without_uncited(draft: Draft) -> Draft:
    """The draft without sentences of its own that carry no reference, each listed as uncited. Every sentence of a
    question's answer is written with its passage numbers; one left without (its number was never shown, or named
    no passage retrieved) was never checked — the verifier does not judge an uncited sentence too short to be a
    claim ("The Anattalakkhana Sutta was taught to the Buddha by his disciples.") — so the reader must not see it.
    Not for study notes, whose headings carry no references."""
    return draft.map(lambda _, line: line if line.citations or line.origin != "model" or not line.text.strip()
                     else line.removed(Reason.UNCITED, detail="no reference left to check it against"))


def unsupported_claims(draft: Draft) -> list[ClaimVerdict]:
    """What the reader is told about the sentences that did not stand, in plain words."""
    out = []
    for line in draft.did_not_stand():
        revised = line.written if line.status is Status.REVISED else ""
        said = line.original or line.written
        verdict: Literal["uncited", "partial", "unsupported"] = (
            "uncited" if line.reason is Reason.UNCITED else
            "partial" if revised or line.verdict == "partial" else "unsupported")
        out.append(ClaimVerdict(sentence=_plain(said), verdict=verdict, reason=explain(line.reason, line.evidence_ref),
                                kind=line.reason.value, detail=line.detail, evidence_ref=line.evidence_ref,
                                evidence_quote=line.evidence_quote, score=round(line.score, 3), revised_to=revised,
                                idle_citations=list(line.idle), pointer=line.pointer))
    return out


def _plain(text: str) -> str:
    from tools.references import strip_citations

    return strip_citations(text)


def _without_unsupported_clauses(v: Verdict) -> str | None:
    """ "MN 10 teaches X, while MN 149 teaches Y" where only X holds: "MN 10 teaches X [MN 10:2.1]." The removed
    clause stays listed with the claim; the sentence is cited to the segments that hold what is left.

    Only while the sentence's first part holds: it carries the subject and the frame, and what follows is read under
    them. Every revision that kept later clauses without it, read in the saved runs, misled or said nothing: "The
    Buddha answered Devadatta's five demands … by saying that if they lived at the foot of a tree …, and whoever took
    shelter would commit an offense" left Devadatta's demands as the Buddha's answer; others left "Using it to carry
    water or a palm frond", "By giving up greed and hate, they do the best kind of work" (who?) and "The training
    rule on tickling was finished"."""
    from tools.verification.evidence import claim_tokens

    parts = v.parts
    if v.verdict != "partial" or any(p.span is None for p in parts):
        return None
    kept = [i for i, p in enumerate(parts) if p.supported]
    if not kept or len(kept) == len(parts) or kept[0] != 0:
        return None
    plain = v.sentence
    if _lost_its_verb(plain, [parts[i].span for i in kept], [p.span for i, p in enumerate(parts) if i not in kept]):
        return None
    pieces: list[str] = []
    for n, i in enumerate(kept):
        span = parts[i].span
        assert span is not None
        a, b = span
        piece = plain[a:b].strip().rstrip(".!?…;,")
        if n:
            before = parts[i - 1].span
            sep = plain[before[1]:a] if kept[n - 1] == i - 1 and before is not None else "; "
            piece = sep + piece
        pieces.append(piece)
    body = "".join(pieces).strip()
    if len(claim_tokens(body)) < 3:
        return None
    refs = list(dict.fromkeys(ev.ref for i in kept if (ev := parts[i].evidence)))
    if not refs:
        return None
    return with_refs(f"{body[0].upper()}{body[1:]}.", refs)


_TELLING = word_set("telling_verbs")
# "that" too: "A lotus that sprouted … [, but then sank …, illustrates]" is as much a subject left without its verb
_RELATIVE = re.compile(r"\b(?:" + "|".join((*word_list("relative_pronouns"), "that")) + r")\b", re.IGNORECASE)


def _lost_its_verb(sentence: str, kept: list[tuple[int, int] | None], cut: list[tuple[int, int] | None]) -> bool:
    """Whether what is kept is a subject whose verb was cut: "The doctrine of ascetics and brahmins who view sensual
    pleasures as pleasant now [but result in future pain illustrates the dangers …]". The kept words open a relative
    clause ("who", "that") and frame nothing, and the verb that frames the sentence ("illustrates", "says") is in a
    part taken out. A kept clause with no relative ("The Realized One grew up in the world …, [and Sāriputta then
    asked the king …]") is a sentence of its own."""
    def said(spans: list[tuple[int, int] | None]) -> str:
        return " ".join(sentence[a:b] for a, b in (sp for sp in spans if sp))

    def tells(text: str) -> bool:
        return any(w.lower() in _TELLING for w in re.findall(r"[\w’'-]+", text))

    left = said(kept)
    return bool(_RELATIVE.search(left)) and not tells(left) and tells(said(cut))


def _narrowed(citations: list[CitationRef], evidence_ref: str) -> tuple[int, CitationRef] | None:
    """Which citation (by its place) to narrow to the segments the verifier found the claim in, and to what; None
    when none is to be. A segment-precise reference is the model's choice and stands."""
    ev = find_citations(f"[{evidence_ref}]")
    if not ev or not ev[0].ok:
        return None
    e = replace(ev[0], raw=ev[0].display())
    if e.is_document:
        return _narrowed_document(citations, e) if e.place else None
    if not e.seg_start:
        return None
    assert e.sutta_id is not None  # ok
    for i, ref in enumerate(citations):
        if not ref.ok or ref.sutta_id != e.sutta_id:
            continue
        if ref.seg_start and not ref.seg_end:
            continue  # already segment-precise: the model's choice stands
        if _starts_within(e, ref):
            return i, e
    return None


def _narrowed_document(citations: list[CitationRef], e: CitationRef) -> tuple[int, CitationRef] | None:
    """A note's or a PDF's place narrowed as a sutta's range is: to the units (or page) that hold the claim."""
    assert e.place is not None and e.document is not None
    for i, ref in enumerate(citations):
        if not ref.is_document or not ref.names_document(e.document):
            continue
        if ref.place is not None:
            if ref.by_page != e.by_page or ref.place[0] == ref.place[1] or \
                    not ref.place[0] <= e.place[0] <= ref.place[1]:
                continue  # already precise, or the support lies outside the cited place: the model's choice stands
        return i, e
    return None


def citations_of(text: str, cmap: CitationMap) -> list[Citation]:
    return citations_of_refs(find_citations(text), cmap)


def citations_of_refs(refs: Iterable[CitationRef], cmap: CitationMap) -> list[Citation]:
    """The citations the reader can open, one per reference, in order; a reference to nothing retrieved is none."""
    out: dict[str, Citation] = {}
    for ref in refs:
        if not ref.ok:
            continue
        key = ref.display()
        if key in out:
            continue
        passage = cmap.passage_for(ref)
        if passage is not None:
            out[key] = cmap.citation(replace(ref, raw=key), passage)
    return list(out.values())


def window_citations(docstore: DocStore, windows: list[EvidenceWindow]) -> list[Citation]:
    """Numbered evidence as citations (English and Pali of its segments): what an abstention offers to read."""
    out = []
    for w in windows:
        pali = " ".join(seg.pali.strip() for seg_id in w.seg_ids if (seg := docstore.segment(seg_id)) and seg.pali)
        out.append(Citation(ref=w.ref, sutta_id=w.sutta_id or None, title=w.title, excerpt=clip(w.text, 500),
                            pali=clip(pali, 500), score=round(w.score, 4), segment_start=w.seg_ids[0],
                            segment_end=w.seg_ids[-1], page=next((p for p in w.pages if p is not None), None)))
    return out


def recorder_passages(recorder: TurnRecorder) -> list[Passage]:
    return list(recorder.passages.values())
