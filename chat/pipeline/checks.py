"""From a draft to a checked answer: citations mapped to the turn's passages, uncited claims given the reference
that supports them, ranges narrowed to the segment that holds the claim, and every sentence the texts do not hold
replaced by the passage's own words or removed.

The reader never sees a warning mark inside a sentence or a half-repaired fragment: a sentence stands, is replaced
by a quotation of its passage, or goes, and each one that did not stand is listed in the answer's
`unsupported_claims` with what replaced it. The verifier (tools.verification.verifier) decides what a passage supports.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from chat.pipeline.answer import Citation, ClaimVerdict, claim_verdict, renderings
from indexing.stores.docstore import DocStore
from indexing.vocabulary import segment_distance, segment_key, sutta_id_to_uid, unit_id
from tools.language.sentences import final_stop, split_sentences
from tools.passages import Passage, clip
from tools.references import BRACKET, MENTION, CitationRef, find_citations, looks_like_citation, parse_bracket
from tools.search.windows import EvidenceWindow
from tools.turn import TurnRecorder

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


def drop_unretrieved(text: str, cmap: CitationMap) -> tuple[str, list[str]]:
    """Remove references that point to nothing retrieved in this turn; returns (text, dropped refs)."""
    dropped: list[str] = []

    def fix(m: re.Match) -> str:
        inner = m.group(1)
        if not looks_like_citation(inner):
            return m.group(0)
        keep = []
        for ref in parse_bracket(inner):
            if ref.ok and cmap.passage_for(ref) is not None:
                keep.append(ref.display())
            else:
                dropped.append(ref.raw)
        return f"[{'; '.join(keep)}]" if keep else ""

    out = BRACKET.sub(fix, text)
    out = re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", out))
    return out, dropped


# ---- verification-driven edits -----------------------------------------------------------------------------
@dataclass
class Checked:
    text: str
    unsupported: list[ClaimVerdict]
    confidence: float
    auto_cited: int = 0
    narrowed: int = 0
    report: object | None = None


def auto_cite(text: str, cmap: CitationMap, verify, limit_suttas: int = 4) -> tuple[str, int]:
    """Give an uncited claim the reference of a retrieved passage that supports it (by the verifier's judgement)."""
    added = 0
    suttas = cmap.suttas()[:limit_suttas]
    if not suttas:
        return text, 0
    for sentence in split_sentences(text):
        if sentence.citations or len(sentence.plain) < 25 or sentence.plain.endswith("?"):
            continue
        named = [s for s in _mentioned(sentence.plain) if s in suttas or s in cmap.suttas()]
        ref = None
        for sutta_id in named + [s for s in suttas if s not in named]:
            report = verify(f"{sentence.plain} [{sutta_id}]")
            verdicts = getattr(report, "verdicts", [])
            if verdicts and verdicts[0].verdict == "supported" and verdicts[0].evidence_ref:
                ref = verdicts[0].evidence_ref
                break
        if ref is None and named:
            # "The discourse is MN 86": the model named a retrieved sutta in prose; cite its best passage.
            best = cmap.passage_for(find_citations(f"[{named[0]}]")[0])
            ref = best.ref if best is not None else None
        if ref is not None:
            text = _append_ref(text, sentence.text, ref)
            added += 1
    return text, added


def _mentioned(text: str) -> list[str]:
    out: list[str] = []
    for m in MENTION.finditer(text):
        refs = find_citations(f"[{m.group(0)}]")
        sutta_id = refs[0].sutta_id if refs and refs[0].ok else None
        if sutta_id is not None and sutta_id not in out:
            out.append(sutta_id)
    return out


def _append_ref(text: str, sentence_text: str, ref: str) -> str:
    at = text.find(sentence_text)
    if at < 0:
        return text
    end = at + len(sentence_text)
    body = sentence_text.rstrip()
    m = final_stop(body)
    if m:
        new = f"{body[:m.start()]} [{ref}]{body[m.start():]}"
    else:
        new = f"{body} [{ref}]"
    return text[:at] + new + text[end:]


def check_sentences(text: str, verify) -> Checked:
    """Verify the whole text; narrow range citations to the supporting segment; remove what fails.

    A partly supported sentence loses the clause no passage holds; any other sentence that fails goes whole. It is
    not replaced by a quotation: the passages' own words are already quoted above the answer, and a spliced quote
    of the nearest lines reads as debris. Each sentence that did not stand is listed in `unsupported`, `revised_to`
    saying what took its place ("" when nothing did)."""
    report = verify(text)
    verdicts = list(getattr(report, "verdicts", []))
    originals = {s.plain: s for s in split_sentences(text)}
    narrowed = 0
    unsupported: list[ClaimVerdict] = []
    for v in verdicts:
        sentence = originals.get(v.sentence)
        if sentence is None:
            continue
        if v.pointer and v.idle_citations:
            claim = claim_verdict(v)
            claim.revised_to = _repoint(sentence, v.idle_citations)
            unsupported.append(claim)
            text = _replace_sentence(text, sentence.text, claim.revised_to)
            continue
        if v.idle_citations and v.verdict in ("supported", "partial"):
            pruned = drop_refs(sentence.text, set(v.idle_citations))
            text = text.replace(sentence.text, pruned, 1)
            sentence = (split_sentences(pruned) or [sentence])[0]
        if v.verdict == "supported" and v.evidence_ref:
            new_text = _narrow(sentence.text, sentence.citations, v.evidence_ref)
            if new_text != sentence.text:
                text = text.replace(sentence.text, new_text, 1)
                narrowed += 1
        elif v.verdict in ("unsupported", "partial", "uncited"):
            claim = claim_verdict(v)
            unsupported.append(claim)
            claim.revised_to = (_without_unsupported_clauses(v) if v.verdict == "partial" else None) or ""
            text = _replace_sentence(text, sentence.text, claim.revised_to)
    return Checked(tidy_text(text), unsupported, float(getattr(report, "confidence", 0.0)), narrowed=narrowed,
                   report=report)


def without_uncited(checked: Checked) -> Checked:
    """The checked answer without sentences that carry no reference, each listed as uncited. Every sentence of a
    question's answer is written with its passage numbers; one left without (its number was never shown, or named
    no passage retrieved) was never checked — the verifier does not judge an uncited sentence too short to be a
    claim ("The Anattalakkhana Sutta was taught to the Buddha by his disciples.") — so the reader must not see it.
    Not for study notes, whose headings carry no references."""
    text = checked.text
    for sentence in split_sentences(checked.text):
        if sentence.citations or not sentence.plain.strip():
            continue
        checked.unsupported.append(ClaimVerdict(sentence=sentence.plain.strip(), verdict="uncited",
                                                reason="no reference left to check it against", revised_to=""))
        text = text.replace(sentence.text, "", 1)
    checked.text = tidy_text(text)
    return checked


def tidy_text(text: str) -> str:
    """What removals leave behind: doubled spaces, empty lines in a row, a paragraph of nothing."""
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _without_unsupported_clauses(v) -> str | None:
    """ "MN 10 teaches X, while MN 149 teaches Y" where only X holds: "MN 10 teaches X [MN 10:2.1]." The removed
    clause stays listed with the claim; the sentence is cited to the segments that hold what is left."""
    from tools.verification.evidence import claim_tokens

    parts = getattr(v, "parts", [])
    if v.verdict != "partial" or any(p.span is None for p in parts):
        return None
    kept = [i for i, p in enumerate(parts) if p.supported]
    if not kept or len(kept) == len(parts) or (kept[0] != 0 and _fragment(parts, kept)):
        return None
    plain = v.sentence
    pieces: list[str] = []
    for n, i in enumerate(kept):
        a, b = parts[i].span
        piece = plain[a:b].strip().rstrip(".!?…;,")
        if n:
            sep = plain[parts[i - 1].span[1]:a] if kept[n - 1] == i - 1 else "; "
            piece = sep + piece
        pieces.append(piece)
    body = "".join(pieces).strip()
    if len(claim_tokens(body)) < 3:
        return None
    refs = list(dict.fromkeys(parts[i].evidence.ref for i in kept if parts[i].evidence))
    if not refs:
        return None
    return f"{body[0].upper()}{body[1:]} {' '.join(f'[{r}]' for r in refs)}."


_SUBORDINATE = re.compile(r"(?:and |but |or )?(?:that|which|who|whom|whose|because|while|whereas|although|though|"
                          r"if|when|where|since|as|so that|whether|until|unless)\b", re.I)


def _fragment(parts, kept: list[int]) -> bool:
    """Whether what is left once the first part failed cannot stand as a sentence: a subordinate clause ("that the
    present should be discerned") or an item of a list whose other items failed ("…there are dwarf cow elephants
    with big footprints, …, and tall lofty cow elephants with big footprints" would leave "Tall lofty cow elephants
    with big footprints [MN 27:10.12]."). An independent clause after "and" stands."""
    from tools.verification.evidence import claim_tokens

    first = parts[kept[0]].text.strip()
    if _SUBORDINATE.match(first):
        return True
    words = set(claim_tokens(first))
    dropped = [set(claim_tokens(p.text)) for i, p in enumerate(parts) if i not in kept]
    return bool(words) and any(len(words & d) >= 0.5 * len(words) for d in dropped)


def _repoint(sentence, idle: list[str]) -> str:
    """ "This is found in [A], [B], [C]" where only B holds the claim before it: "The same is found in [B]." With
    nothing left it goes: a list of references that do not say what they are offered for misleads."""
    idle_set = set(idle)
    held = [r for r in sentence.citations if r.raw not in idle_set and r.ok]
    if not held:
        return ""
    return f"The same is found in {' and '.join(f'[{r.display()}]' for r in held)}."


def drop_refs(sentence_text: str, refs: set[str]) -> str:
    """The sentence without these references (as written); brackets left empty go too."""
    def fix(m: re.Match) -> str:
        inner = m.group(1)
        if not looks_like_citation(inner):
            return m.group(0)
        parsed = parse_bracket(inner)
        keep = [r.raw for r in parsed if r.raw not in refs]
        if len(keep) == len(parsed):
            return m.group(0)
        return f"[{'; '.join(keep)}]" if keep else ""

    out = BRACKET.sub(fix, sentence_text)
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", out))


def _replace_sentence(text: str, old: str, new: str) -> str:
    at = text.find(old)
    if at < 0:
        return text
    before, after = text[:at], text[at + len(old):]
    if not new:
        # keep the paragraph's spacing: drop one separating space, never a newline
        if before.endswith(" "):
            before = before[:-1]
        elif after.startswith(" "):
            after = after[1:]
    return before + new + after


def _narrow(sentence_text: str, refs: list[CitationRef], evidence_ref: str) -> str:
    ev = find_citations(f"[{evidence_ref}]")
    if not ev or not ev[0].ok:
        return sentence_text
    e = ev[0]
    if e.is_document:
        return _narrow_document(sentence_text, refs, e) if e.place else sentence_text
    if not e.seg_start:
        return sentence_text
    assert e.sutta_id is not None  # ok
    for ref in refs:
        if not ref.ok or ref.sutta_id != e.sutta_id:
            continue
        precise = ref.seg_start and not ref.seg_end
        if precise:
            continue  # already segment-precise: the model's choice stands
        if ref.seg_start and ref.seg_end:
            uid = sutta_id_to_uid(e.sutta_id)
            lo, hi = segment_key(f"{uid}:{ref.seg_start}"), segment_key(f"{uid}:{ref.seg_end}")
            if not lo <= segment_key(f"{uid}:{e.seg_start}") <= hi:
                continue
        return sentence_text.replace(ref.raw, e.display(), 1)
    return sentence_text


def _narrow_document(sentence_text: str, refs: list[CitationRef], e: CitationRef) -> str:
    """A note's or a PDF's place narrowed as a sutta's range is: to the units (or page) that hold the claim."""
    assert e.place is not None and e.document is not None
    for ref in refs:
        if not ref.is_document or not ref.names_document(e.document):
            continue
        if ref.place is not None:
            if ref.by_page != e.by_page or ref.place[0] == ref.place[1] or \
                    not ref.place[0] <= e.place[0] <= ref.place[1]:
                continue  # already precise, or the support lies outside the cited place: the model's choice stands
        return sentence_text.replace(ref.raw, e.display(), 1)
    return sentence_text


def citations_of(text: str, cmap: CitationMap) -> list[Citation]:
    out: dict[str, Citation] = {}
    for ref in find_citations(text):
        if not ref.ok:
            continue
        key = ref.display()
        if key in out:
            continue
        passage = cmap.passage_for(ref)
        if passage is not None:
            ref.raw = key
            out[key] = cmap.citation(ref, passage)
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
