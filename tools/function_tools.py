"""The tools as LlamaIndex FunctionTools, with outputs sized for a small model's context.

What the model reads is numbered evidence: the few lines of each retrieved text that answer the query
(tools/search/windows.py), whole, each under a number it cites ("[2]") and with the reference that number stands for
(`[2] SN 35.28:1.3–1.6 (Burning): ...`). Numbers run across the turn's tool calls (TurnRecorder.number), so the
pipeline maps every cited number back to its segments. Every call is recorded in the turn's TurnRecorder, so the
answer's citations can be checked against what was really retrieved. Tool
errors come back as one readable line (the model can correct itself) rather than a traceback. The descriptions
the model reads are the docstrings of CanonTools' tool methods, and nothing else.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from llama_index.core.bridge.pydantic import BaseModel
from llama_index.core.tools import FunctionTool

from indexing.vocabulary import BASKETS
from tools.errors import ToolError, UnknownReferenceError
from tools.passages import Passage, clip
from tools.references import asks_for_parallels, collection_code, translator_named
from tools.search.query import NamedSutta
from tools.search.text_judge import TextJudge
from tools.search.windows import EvidenceWindow, beside, opening, question_words, rank_windows
from tools.texts.table_text import TableText
from tools.turn import TurnRecorder

log = logging.getLogger(__name__)

TOOL_NAMES = ("resolve_alias", "lookup_sutta", "search_passages", "expand_context", "verify_claims",
              "find_parallels", "compare_translations", "find_rule")


@dataclass
class ToolBudget:
    """How much text the tools give the model: ~5 passages of ~360 characters keeps a step near 600 tokens."""

    k: int = 5
    passage_chars: int = 360
    lookup_passages: int = 3
    expand_each_side: int = 2
    windows: int = 4  # numbered evidence items one call shows
    texts: int = 4  # retrieved texts whose lines compete for those items


@dataclass
class ToolResult:
    """One tool call: the text the model reads, the passages it showed, the numbered evidence in that text, and the
    error when the call failed."""

    text: str
    passages: list[Passage]
    error: str | None = None
    evidence: list[tuple[int, EvidenceWindow]] = field(default_factory=list)
    # an answer read straight from a table (parallels, translations, rules), in plain sentences citing its lines:
    # the reader's answer as it stands, with no model needed to word it
    table: TableText | None = None


def render_evidence(numbered: list[tuple[int, EvidenceWindow]]) -> str:
    # the twins' references let the model answer "which suttas have this?" without a second search
    return "\n".join(f"[{n}] {w.ref} ({w.title}): {w.text}" + (f" (also at {', '.join(w.also)})" if w.also else "")
                     for n, w in numbered)


def _with_twins(windows: list[EvidenceWindow], passages: list[Passage]) -> list[EvidenceWindow]:
    twins = {p.doc_id: tuple(t.ref for t in p.twins[:3]) for p in passages if p.twins}
    return [replace(w, also=twins[w.doc_id]) if w.doc_id in twins else w for w in windows]


class CanonTools:
    """The tool bodies, bound to one library and one turn's recorder. The Scholar runs the planned calls through
    the same methods. Each returns a ToolResult; the FunctionTools built by `build_tools` give the model its text.
    The tool methods' docstrings are the descriptions the model reads."""

    def __init__(self, library, recorder: TurnRecorder, budget: ToolBudget | None = None, llm=None,
                 verifier_mode: str = "local", judge: TextJudge | None = None):
        self.library = library
        self.recorder = recorder
        self.budget = budget or ToolBudget()
        self.llm = llm
        self.verifier_mode = verifier_mode
        self.judge = judge  # the model choosing the first text of the turn's first search (seconds: once a turn)

    # ---- plumbing ---------------------------------------------------------------------------------------
    def _run(self, tool: str, inputs: dict, body: Callable[[], tuple[list[Passage], str, str]]) -> ToolResult:
        """Run a body returning (passages, text for the model, one-line summary), recorded; a ToolError becomes
        a result whose text tells the model what went wrong."""
        def fn() -> tuple[ToolResult, str]:
            shown = len(self.recorder.evidence)
            passages, text, summary = body()
            self.recorder.add_passages(passages)
            self.recorder.add_passages([t for p in passages for t in p.twins])
            numbered = self._numbered_since(shown, text)
            return ToolResult(text, passages, evidence=numbered), summary

        try:
            result = self.recorder.run(tool, inputs, fn)
        except ToolError as exc:
            return ToolResult(f"Error: {exc}", [], error=str(exc))
        assert isinstance(result, ToolResult)
        return result

    def _numbered_since(self, shown: int, text: str) -> list[tuple[int, EvidenceWindow]]:
        numbers = {int(n) for n in re.findall(r"^\[(\d+)\]", text, re.M)}
        return [(n, w) for n, w in enumerate(self.recorder.evidence, 1) if n in numbers or n > shown]

    def _evidence(self, windows: list[EvidenceWindow]) -> tuple[list[Passage], str]:
        """Number the windows for this turn; the chunks that hold them (what citations and panels point into)."""
        numbers = self.recorder.number(windows)
        numbered = sorted(dict(zip(numbers, windows)).items())
        return self._covering(windows), render_evidence(numbered)

    def show(self, windows: list[EvidenceWindow]) -> list[int]:
        """Number windows found outside a tool call (the lines a selection adds) and record the chunks that hold
        them, so they are cited and checked like any tool's."""
        self.recorder.add_passages(self._covering(windows))
        return self.recorder.number(windows)

    def _covering(self, windows: list[EvidenceWindow]) -> list[Passage]:
        from indexing.vocabulary import segment_key

        out: dict[str, Passage] = {}
        for w in windows:
            lo, hi = segment_key(w.seg_ids[0]), segment_key(w.seg_ids[-1])
            for chunk in self.library.docstore.chunks_of(w.doc_id):
                if chunk.segment_start and chunk.segment_end and \
                        segment_key(chunk.segment_end) >= lo and segment_key(chunk.segment_start) <= hi:
                    out.setdefault(chunk.chunk_id, Passage.from_chunk(chunk))
        return list(out.values())

    def _windows_in(self, doc_ids: list[str], query: str, *, setting: bool = False,
                    limit: int = 0) -> list[EvidenceWindow]:
        """The lines of these texts that answer the query; a text's opening when the query names nothing to find.
        `setting`: the openings compete too (who was there, where, to whom); `limit`: fewer windows than the
        budget's."""
        docs = list(dict.fromkeys(doc_ids))[: self.budget.texts]
        limit = min(limit or self.budget.windows, self.budget.windows)
        if question_words(query):
            return rank_windows(self.library, self.library.evidence, query, docs, limit=limit, opening=setting)
        windows: list[EvidenceWindow] = []
        for doc_id in docs:
            first = opening(self.library.evidence, doc_id)
            if first is None:
                continue
            windows.append(first)
            if len(docs) == 1:
                windows.extend(beside(self.library, self.library.evidence, first.seg_ids[-1], limit=limit - 1))
        return windows[:limit]

    def _lead_with(self, doc_id: str, query: str, windows: list[EvidenceWindow]) -> list[EvidenceWindow]:
        """The windows with those of `doc_id` first — the text the model judged the question to be about, whose
        lines may share fewer of the reader's words than another text's — its best window added when none was."""
        if not any(w.doc_id == doc_id for w in windows):
            own = rank_windows(self.library, self.library.evidence, query, [doc_id], limit=1)
            windows = own + windows[: max(len(windows) - len(own), 0)] if own else windows
        return sorted(windows, key=lambda w: w.doc_id != doc_id)

    # ---- the tools --------------------------------------------------------------------------------------
    def resolve_alias(self, name: str) -> ToolResult:
        """Find the sutta ID for a title or nickname ("Fire Sermon", "Kakacūpama Sutta"). Returns candidate IDs
        with titles. Call it before lookup_sutta when the user names a sutta by title instead of by number."""
        from tools.search.names import resolve_name

        def body():
            res = resolve_name(self.library, name)
            cands = res.candidates[:4]
            self.recorder.search_types_used.add("alias")
            if not cands:
                return [], f"No sutta is known by the name {name!r}. Try search_passages.", "no match"
            lines = [f"{c.sutta_id}: {c.title} (matched {c.matched!r} by {c.how or c.source}, score {c.score:.0f})"
                     for c in cands]
            if res.ambiguous:
                lines.append("Several suttas share this name; look up each or ask which one is meant.")
            return [], "\n".join(lines), ", ".join(f"{c.sutta_id} ({c.how or c.source})" for c in cands)

        return self._run("resolve_alias", {"name": name}, body)

    def lookup_sutta(self, sutta_id: str, query: str = "", translator: str = "") -> ToolResult:
        """Read a text by ID ("MN 21", "SN 35.28", "Snp 1.4", "Bu Pj 2", "Kd 10"). query: what to find inside it;
        translator: another translation to read (e.g. "soma"). Returns its title, translator, parallels and the
        lines that answer the query as numbered passages; says so if no such text exists."""
        from tools.texts.lookup import lookup

        translator = translator.strip() or (translator_named(query) or "")
        return self._lookup(sutta_id, query, translator,
                            lambda: lookup(self.library, sutta_id, translator=translator or None))

    def lookup_named(self, named: NamedSutta, query: str = "", translator: str = "", *,
                     setting: bool = False, summary: bool = True, windows: int = 0) -> ToolResult:
        """`lookup_sutta` for a sutta the query's analysis already resolved to its documents; `setting` lets its
        opening compete with the lines that match the query; `summary=False` leaves out its summary (blurb);
        `windows`: fewer passages than the budget's."""
        from tools.texts.lookup import lookup, lookup_docs

        translator = translator.strip() or (translator_named(query) or "")

        def find():
            if named.error is not None:
                raise UnknownReferenceError(named.error)
            if named.reference is None:  # a name whose ID the reference grammar does not read
                return lookup(self.library, named.sutta_id, translator=translator or None)
            return lookup_docs(self.library, named.reference, named.doc_ids, query=named.sutta_id,
                               translator=translator or None)

        return self._lookup(named.sutta_id, query, translator, find, setting=setting, summary=summary,
                            limit=windows)

    def _lookup(self, sutta_id: str, query: str, translator: str, find, *, setting: bool = False,
                summary: bool = True, limit: int = 0) -> ToolResult:
        from tools.texts.lookup import parallel_openings

        def body():
            result = find()
            self.recorder.search_types_used.add("lookup")
            # Without the summary (a sutta the conversation has already introduced) the title line goes too: the
            # model began its answers by copying it, once per passage number; each passage row names the sutta.
            head = ""
            if summary:
                head = f"{result.sutta_id} {result.title}"
                if result.title_pali:
                    head += f" ({result.title_pali})"
                head += f", {result.collection}."
            if len(result.translations) > 1 or translator:
                head += " " + result.translation_line()
            if result.blurb and summary:
                head += " " + clip(result.blurb, 200)
            head = head.strip()
            if asks_for_parallels(query):
                openings = parallel_openings(self.library, result, self.budget.lookup_passages)
                windows = self._windows_in(result.doc_ids, "")[:1] + [
                    w for p in openings if (w := opening(self.library.evidence, p.doc_id)) is not None]
                head += "\n" + result.parallels_text({p.sutta_id: p.ref for p in openings})
            else:
                windows = self._windows_in(result.doc_ids, query, setting=setting, limit=limit)
                if result.held_parallels():
                    head += f"\nParallels in the library: {'; '.join(result.held_parallels())}."
            passages, text = self._evidence(windows)
            return passages, (head + "\n" + text).lstrip("\n"), f"{result.sutta_id}: {len(windows)} passages"

        inputs = {"sutta_id": sutta_id, "query": query}
        if translator:
            inputs["translator"] = translator
        return self._run("lookup_sutta", inputs, body)

    def search_passages(self, query: str, collection: str = "", k: int = 0, *, windows: int = 0,
                        prefer: Sequence[str] = ()) -> ToolResult:
        """Search all texts for passages on a topic, simile or phrase. query: plain words; collection: DN, MN, SN,
        AN or KN (or Vinaya, Sutta) to search only there. Returns numbered passages."""
        from tools.search.retriever import SEMANTIC_NOTE, search

        k = max(1, min(int(k or self.budget.k), 15))
        wanted = (collection or "").strip().lower()
        basket = wanted if wanted in BASKETS else None
        coll = None if basket else collection_code(collection or "")

        judge, self.judge = self.judge, None

        def body():
            result = search(self.library, query, k=k, collection=coll, basket=basket, pinned_docs=prefer, judge=judge)
            self.recorder.search_types_used.update(result.search_types_used)
            # what the index is missing is for the reader and the trace, not the model
            notes = "".join(f"({n})\n" for n in result.notes
                            if "unavailable" not in n and not n.startswith(SEMANTIC_NOTE))
            if not result.passages:
                return [], notes + "No passages found. Try other words.", f"0 passages ({result.answered_by()})"
            found = self._windows_in([p.doc_id for p in result.passages], query, limit=windows)
            if result.judged_first:
                found = self._lead_with(result.judged_first, query, found)
            shown = _with_twins(found, result.passages)
            covering, text = self._evidence(shown)
            held = {p.chunk_id for p in covering}
            # the search's own hits stay retrieved (a citation may point into them) after the lines shown
            passages = covering + [p for p in result.passages if p.chunk_id not in held]
            return passages, notes + text, f"{len(result.passages)} passages {result.answered_by()}: " + ", ".join(
                p.ref for p in result.passages[:6])

        inputs = {"query": query, "k": k}
        if coll or basket:
            inputs["collection"] = coll or basket
        return self._run("search_passages", inputs, body)

    def expand_context(self, ref: str, before: int = 1, after: int = 1) -> ToolResult:
        """Show the text just before and after a reference ("MN 21:20.1"), e.g. for "what comes next?".
        before/after: passages on each side (0–4). Returns numbered passages."""
        before = max(0, min(int(before), 4))
        after = max(0, min(int(after), 4))

        def body():
            start, end = self.segments_of(ref)
            windows = beside(self.library, self.library.evidence, start, after=False, limit=before) if before else []
            windows += beside(self.library, self.library.evidence, end, after=True, limit=after) if after else []
            self.recorder.search_types_used.add("context")
            if not windows:
                return [], f"No text found around {ref}.", f"nothing around {ref}"
            passages, text = self._evidence(windows)
            return passages, text, f"{len(windows)} passages around {ref}: " + ", ".join(w.ref for w in windows)

        return self._run("expand_context", {"ref": ref, "before": before, "after": after}, body)

    def segments_of(self, ref: str) -> tuple[str, str]:
        """The first and last segment IDs a reference (or a chunk ID) covers; a bare sutta ID means its opening."""
        from tools.references import parse_ref

        chunk = self.library.docstore.chunk(ref.strip())
        if chunk is not None and chunk.segment_start:
            return chunk.segment_start, chunk.segment_end or chunk.segment_start
        doc_id, index = self._locate(ref)
        parsed = parse_ref(clean_ref(ref))
        if parsed.ok and parsed.seg_start:
            return f"{doc_id}:{parsed.seg_start}", f"{doc_id}:{parsed.seg_end or parsed.seg_start}"
        first = self.library.docstore.chunks_of(doc_id, index, index)[0]
        return first.segment_start or f"{doc_id}:1", first.segment_end or first.segment_start or f"{doc_id}:1"

    def _locate(self, ref: str) -> tuple[str, int]:
        """(doc_id, chunk_index) of the chunk holding a reference such as `MN 21:20.1` (or a chunk ID)."""
        from indexing.vocabulary import segment_key, sutta_id_to_uid
        from tools.references import parse_ref

        chunk = self.library.docstore.chunk(ref.strip())
        if chunk is not None:
            return chunk.doc_id, chunk.chunk_index
        parsed = parse_ref(clean_ref(ref))
        if not parsed.ok or parsed.sutta_id is None:
            raise ToolError(f"{ref!r} is not a reference; write it like MN 21:20.1")
        doc = self.library.docstore.document(sutta_id_to_uid(parsed.sutta_id)) or \
            self.library.docstore.document_by_sutta_id(parsed.sutta_id)
        if doc is None:
            from tools.texts.lookup import lookup

            doc_ids = lookup(self.library, parsed.sutta_id).doc_ids
            doc = self.library.docstore.document(doc_ids[0]) if doc_ids else None
        if doc is None:
            raise ToolError(f"there is no {parsed.sutta_id} in the texts I have")
        chunks = self.library.docstore.chunks_of(doc.doc_id)
        if not chunks:
            raise ToolError(f"{parsed.sutta_id} has no text in the index")
        if parsed.seg_start:
            key = segment_key(f"{doc.doc_id}:{parsed.seg_start}")
            for c in chunks:
                if c.segment_start and c.segment_end and \
                        segment_key(c.segment_start) <= key <= segment_key(c.segment_end):
                    return doc.doc_id, c.chunk_index
            for c in chunks:  # between chunks (a heading segment): the next chunk
                if c.segment_start and segment_key(c.segment_start) >= key:
                    return doc.doc_id, c.chunk_index
        return doc.doc_id, chunks[0].chunk_index

    def find_parallels(self, sutta_id: str, within: str = "") -> ToolResult:
        """List a text's parallels from SuttaCentral's table ("MN 1"). within: a tradition or collection to keep
        ("Chinese", "Madhyama Agama", "Sanskrit", "Pali"). Returns each parallel by SuttaCentral ID (MA 106), full or
        partial, whether the library holds it and its link, with the parallels held quoted side by side."""
        from tools.texts.library_tools import parallels_table

        return self._table("find_parallels", {"sutta_id": sutta_id, **({"within": within} if within else {})},
                           lambda: parallels_table(self.library, sutta_id, within))

    def compare_translations(self, sutta_id: str, translators: str = "") -> ToolResult:
        """Show a text's translations side by side ("Thig 1.1"), segment by segment with the Pali. translators:
        whose ("sujato, soma"); empty for every one the library holds. Says so when a translator is not held."""
        from tools.texts.library_tools import translations_table

        return self._table("compare_translations",
                           {"sutta_id": sutta_id, **({"translators": translators} if translators else {})},
                           lambda: translations_table(self.library, sutta_id, translators))

    def find_rule(self, topic: str) -> ToolResult:
        """Find the Vinaya rule on a topic ("digging the earth", "a monk accepting money"). Returns the rule's ID
        (Bu Pc 10), title, offence class (expulsion, suspension, confession ...) and its words as laid down."""
        from tools.texts.library_tools import rule_table

        return self._table("find_rule", {"topic": topic}, lambda: rule_table(self.library, topic))

    def _table(self, tool: str, inputs: dict, build) -> ToolResult:
        """A tool answered from a table: its answer and the lines it quotes, numbered like any evidence."""
        answer: list[TableText] = []

        def body():
            table = build()
            self.recorder.search_types_used.add("table")
            passages, text = self._evidence(table.windows)
            answer.append(table.answer)
            return passages, f"{table.answer.text}\n{text}".strip(), table.summary

        result = self._run(tool, inputs, body)
        result.table = answer[0] if answer and result.error is None else None
        return result

    def verify_claims(self, draft: str) -> ToolResult:
        """Check a draft answer against the retrieved passages. draft: the answer with its [refs]. Returns which
        sentences the texts do not support. Optional; the answer is checked anyway."""
        from tools.verification.verifier import verify_claims_for_agent

        def body():
            _, text = verify_claims_for_agent(self.library, self.recorder, draft, llm=self.llm,
                                              mode=self.verifier_mode)
            return [], text, text.splitlines()[0] if text else ""

        return self._run("verify_claims", {"draft": clip(draft, 300)}, body)


# ---- argument schemas: the names and defaults of each tool's arguments ------------------------------------
# The model reads only the one-line signature made from these (chat/pipeline/agent.py); what each argument means is
# said once, in the tool method's docstring.


class _AliasArgs(BaseModel):
    name: str


class _LookupArgs(BaseModel):
    sutta_id: str
    query: str = ""
    translator: str = ""


class _SearchArgs(BaseModel):
    query: str
    collection: str = ""


class _ExpandArgs(BaseModel):
    ref: str
    before: int = 1
    after: int = 1


class _VerifyArgs(BaseModel):
    draft: str


class _ParallelsArgs(BaseModel):
    sutta_id: str
    within: str = ""


class _TranslationsArgs(BaseModel):
    sutta_id: str
    translators: str = ""


class _RuleArgs(BaseModel):
    topic: str


_SCHEMAS: dict[str, type[BaseModel]] = {
    "resolve_alias": _AliasArgs, "lookup_sutta": _LookupArgs, "search_passages": _SearchArgs,
    "expand_context": _ExpandArgs, "verify_claims": _VerifyArgs, "find_parallels": _ParallelsArgs,
    "compare_translations": _TranslationsArgs, "find_rule": _RuleArgs,
}
# Argument names small models reach for instead of the real ones.
_ARG_SYNONYMS = {
    "query": ("input", "q", "text", "topic", "search", "question", "keywords", "search_query"),
    "name": ("alias", "title", "input", "nickname", "sutta", "query", "sutta_name"),
    "sutta_id": ("id", "sutta", "ref", "reference", "input", "uid", "sutta_ref"),
    "ref": ("reference", "segment", "sutta_id", "id", "input", "citation"),
    "draft": ("answer", "text", "input", "claims"),
    "translator": ("translation", "translated_by", "version"),
    "translators": ("translator", "translation", "translated_by", "names", "by"),
    "within": ("collection", "language", "tradition", "in", "where"),
    "topic": ("query", "rule", "subject", "question", "input", "text"),
}


def _tolerant(method: Callable[..., ToolResult], schema: type[BaseModel]) -> Callable[..., str]:
    wanted = list(schema.model_fields)

    def call(**kwargs) -> str:
        args: dict = {}
        for name in wanted:
            if name in kwargs:
                args[name] = kwargs.pop(name)
        for name in wanted:
            if name in args:
                continue
            for alt in _ARG_SYNONYMS.get(name, ()):
                if alt in kwargs:
                    args[name] = kwargs.pop(alt)
                    break
        missing = [n for n in wanted if schema.model_fields[n].is_required() and n not in args]
        if missing:
            return f"Error: missing argument {missing[0]!r}; arguments are {', '.join(wanted)}."
        for name, value in list(args.items()):
            if isinstance(value, list):
                args[name] = " ".join(map(str, value))
            elif schema.model_fields[name].annotation is int:
                try:
                    args[name] = int(value)
                except (TypeError, ValueError):
                    args.pop(name)
            elif value is not None and not isinstance(value, str):
                args[name] = str(value)
        return method(**args).text

    call.__name__ = method.__name__
    return call


def build_tools(library, recorder: TurnRecorder, *, budget: ToolBudget | None = None, llm=None,
                verifier_mode: str = "local", canon: CanonTools | None = None) -> list[FunctionTool]:
    """The FunctionTools for the agent, sharing one CanonTools (pass `canon` to reuse the planner's)."""
    canon = canon or CanonTools(library, recorder, budget, llm=llm, verifier_mode=verifier_mode)
    tools = []
    for name in TOOL_NAMES:
        tools.append(FunctionTool.from_defaults(
            fn=_tolerant(getattr(canon, name), _SCHEMAS[name]),
            name=name,
            description=" ".join(getattr(CanonTools, name).__doc__.split()),
            fn_schema=_SCHEMAS[name],
        ))
    return tools


def clean_ref(ref: str) -> str:
    return re.sub(r"\s+", " ", ref.strip().strip("[]"))
