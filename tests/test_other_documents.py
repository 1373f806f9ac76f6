"""Documents that are not SuttaCentral texts (Markdown notes, PDFs) flow through every path of an answer: the
quote for an uncited draft, the model's own sentences cited by number and checked against them, the citations,
the side panel, the API, the CLI and the trace."""

from __future__ import annotations

import re

import pymupdf
import pytest

from chat.pipeline.answer import Citation
from indexing.pipeline import ingest
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.passages import Passage

from fakes import FakeEmbedding

NOTES = """# Retreat notes

## Walking meditation

Walking meditation is practised on a straight path of twenty paces, slowly, attending to the lifting and placing
of each foot. Walking meditation in the evening follows the sitting.
"""


TALK_PAGES = [
    "A Dhamma talk given on the first evening of the retreat, about the perfections.",
    "Generosity is the first of the ten perfections, and giving alms to the monastic community is its simplest "
    "form.",
]


def _talk_pdf(path):
    doc = pymupdf.open()
    for text in TALK_PAGES:
        doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 400), text)
    doc.set_metadata({"title": "Dhamma talk"})
    doc.save(path)
    doc.close()


@pytest.fixture(scope="module")
def notes_library(tmp_path_factory):
    root = tmp_path_factory.mktemp("notes")
    (root / "corpus").mkdir()
    (root / "corpus" / "retreat-notes.md").write_text(NOTES, encoding="utf-8")
    _talk_pdf(root / "corpus" / "dhamma-talk.pdf")
    settings = ScholarSettings(_env_file=None, index_dir=root / "index", corpus_paths=[root / "corpus"])
    embed = FakeEmbedding(model_name="fake-hash-64")
    ingest(settings, [root / "corpus"], embed_model=embed, progress=False)
    library = Library.open(settings, embed_model=embed)
    yield library
    Library.forget()


def _passages(library) -> list[Passage]:
    from tools.search.retriever import search

    found = search(library, "walking meditation paces", k=5, mode="bm25").passages
    assert found and all(p.doc_id.startswith("markdown:") for p in found)
    return found


def test_evidence_from_a_markdown_passage_is_quoted_under_its_title(notes_library):
    from chat.pipeline.compose import key_lines
    from tools.search.windows import rank_windows

    doc_id = _passages(notes_library)[0].doc_id
    windows = rank_windows(notes_library, notes_library.evidence, "How many paces is the walking meditation path?",
                           [doc_id])
    shown = key_lines(windows[:1])
    assert "twenty paces" in shown and "markdown:" not in shown


def _scholar(library, tmp_path, replies):
    from chat.pipeline.scholar import Scholar
    from chat.providers.scripted import ScriptedLLM

    llm = ScriptedLLM(list(replies))
    settings = library.settings.model_copy(update={"memory_db": tmp_path / "memory.sqlite"})
    return Scholar(settings, library, llm), llm


async def test_an_uncited_draft_over_notes_leaves_the_quoted_notes_and_lists_the_claim(notes_library, tmp_path):
    scholar, _ = _scholar(notes_library, tmp_path, [
        "Thought: I can answer.\nAnswer: The walking path is twenty paces long.",
        "How is walking meditation done?\nWhen is it practised?",
    ])
    answer = await scholar.aask("How many paces is the walking meditation path?", session_id="notes-1")
    assert answer.status == "answered", answer.error
    assert "Something went wrong" not in answer.answer
    assert answer.unsupported_claims and answer.unsupported_claims[0].verdict == "uncited"
    assert "twenty paces" in answer.answer and "⚠" not in answer.answer and "markdown:" not in answer.answer
    assert answer.confidence <= 0.3
    assert all(step.error is None for step in answer.trace)
    # the quoted notes are the answer's citation, as a quoted sutta would be: never "answered" with none
    [cited] = answer.citations
    assert cited.ref == "Retreat notes ¶1" and f"[{cited.ref}]" in answer.answer and "twenty paces" in cited.excerpt
    assert cited.title == "Retreat notes" and cited.sutta_id is None and cited.segment_start
    from chat.ui.sources import citation_panel

    assert "twenty paces" in citation_panel(notes_library, cited)


def test_the_side_panel_of_a_markdown_passage_shows_its_text(notes_library, caplog):
    from chat.ui.sources import citation_panel

    p = _passages(notes_library)[0]
    panel = citation_panel(notes_library, Citation(ref=p.ref, sutta_id=None, title=p.title, excerpt=p.text[:80],
                                                   chunk_id=p.chunk_id))
    assert "twenty paces" in panel
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


# ---- the model's own sentences citing a note or a PDF by number ----------------------------------------------
def _citing(phrase: str, sentence: str):
    """A scripted model that cites, by the number it was shown, the evidence holding `phrase`; then follow-ups."""
    calls: list[str] = []

    def reply(messages) -> str:
        calls.append("")
        if len(calls) > 1:
            return "What else do the notes say?\nWhen is it practised?"
        shown = "\n".join(str(m.content) for m in messages)
        number = next(n for n, line in re.findall(r"\[(\d+)\] ([^\n]*)", shown) if phrase in line)
        return f"Thought: I can answer.\nAnswer: {sentence} [{number}]."
    return reply


async def _ask(library, tmp_path, question: str, reply):
    from chat.pipeline.scholar import Scholar
    from chat.providers.scripted import ScriptedLLM

    settings = library.settings.model_copy(update={"memory_db": tmp_path / "memory.sqlite"})
    scholar = Scholar(settings, library, ScriptedLLM(reply))
    return await scholar.aask(question, session_id="notes-cite")


WALKING = "Walking meditation is practised on a path, straight and twenty paces"  # the note's words, reordered


async def test_a_sentence_citing_a_note_by_number_stands_and_is_cited(notes_library, tmp_path):
    answer = await _ask(notes_library, tmp_path, "How many paces is the walking meditation path?",
                        _citing("twenty paces", WALKING))
    assert answer.status == "answered", answer.error
    assert f"{WALKING} [Retreat notes ¶1]." in answer.answer  # the number became the note's reference
    assert not answer.unsupported_claims
    [cited] = answer.citations
    assert (cited.ref, cited.title, cited.sutta_id, cited.page) == ("Retreat notes ¶1", "Retreat notes", None, None)
    assert "twenty paces" in cited.excerpt and cited.segment_start and cited.segment_start == cited.segment_end
    assert answer.confidence > 0.5
    # the trace names the note the search found
    assert any("Retreat notes" in step.output_summary for step in answer.trace)


async def test_a_sentence_copied_word_for_word_is_shown_as_a_quotation(notes_library, tmp_path):
    copied = "Walking meditation is practised on a straight path of twenty paces"
    answer = await _ask(notes_library, tmp_path, "How many paces is the walking meditation path?",
                        _citing("twenty paces", copied))
    assert not answer.unsupported_claims  # it holds: the note's own words
    # a quotation, not the answer's own words; with nothing of its own, the answer is the key lines, once
    assert all(s.origin == "quote" for s in answer.sentences)
    assert answer.answer.startswith("The texts I have say this") and answer.answer.count(copied) == 1


async def test_a_wrong_sentence_citing_a_note_is_removed(notes_library, tmp_path):
    wrong = "Walking meditation is practised on a circular path of fifty paces"
    answer = await _ask(notes_library, tmp_path, "How many paces is the walking meditation path?",
                        _citing("twenty paces", wrong))
    assert "fifty" not in answer.answer and "circular" not in answer.answer
    [claim] = answer.unsupported_claims
    assert claim.verdict == "unsupported" and claim.sentence.startswith(wrong) and claim.revised_to == ""
    assert claim.detail == "number differs: 50 vs 20" and claim.evidence_ref == "Retreat notes ¶1"  # read in the note
    assert claim.reason == "The cited lines give a different number." and claim.kind == "number_differs"


async def test_a_sentence_citing_a_pdf_names_its_page(notes_library, tmp_path):
    sentence = "Of the ten perfections, generosity is the first"
    answer = await _ask(notes_library, tmp_path, "Which perfection comes first of the ten perfections?",
                        _citing("ten perfections", sentence))
    assert answer.status == "answered", answer.error
    assert f"{sentence} [Dhamma talk p. 2]." in answer.answer and not answer.unsupported_claims
    cited = next(c for c in answer.citations if c.ref == "Dhamma talk p. 2")
    assert cited.title == "Dhamma talk" and cited.page == 2 and "giving alms" in cited.excerpt


async def test_a_cited_note_is_shown_by_title_and_place_in_the_chat_the_api_and_the_cli(notes_library, tmp_path):
    from fastapi.testclient import TestClient

    from chat.api.routes import create_app
    from chat.cli.ask import _checked
    from chat.runtime import Runtime
    from chat.ui.render import render_answer
    from chat.ui.sources import citation_panel

    answer = await _ask(notes_library, tmp_path, "How many paces is the walking meditation path?",
                        _citing("twenty paces", WALKING))
    [cited] = answer.citations
    # the chat: the sources line and the side panel, with the cited unit marked in its context
    assert "Retreat notes ¶1" in render_answer(answer)
    panel = citation_panel(notes_library, cited)
    assert "Retreat notes ¶1" in panel and "▶ ¶1" in panel and "twenty paces" in panel
    # the CLI
    shown = _checked(answer, answer.answer)
    assert "[Retreat notes ¶1] Retreat notes: Walking meditation is practised" in shown

    # the API
    class Ready:
        async def aask(self, question, *, session_id=None, mode="auto"):
            return answer

    settings = notes_library.settings.model_copy(update={"memory_db": tmp_path / "api-memory.sqlite"})
    client = TestClient(create_app(Runtime(settings, library=notes_library, scholar=Ready())))
    body = client.post("/api/query", json={"query": "How many paces is the walking meditation path?"}).json()
    [out] = body["citations"]
    assert (out["ref"], out["title"], out["sutta_id"]) == ("Retreat notes ¶1", "Retreat notes", None)
    assert f"{WALKING} [Retreat notes ¶1]." in body["answer"]


def test_the_side_panel_of_a_pdf_citation_marks_its_page(notes_library):
    from chat.pipeline.checks import CitationMap, citations_of
    from tools.search.retriever import search

    found = search(notes_library, "generosity perfections alms", k=5, mode="bm25").passages
    cmap = CitationMap([p for p in found if p.doc_id.startswith("pdf:")], notes_library.docstore)
    [cited] = citations_of("Generosity comes first [Dhamma talk p. 2].", cmap)
    assert cited.page == 2 and cited.ref == "Dhamma talk p. 2"
    from chat.ui.sources import citation_panel

    panel = citation_panel(notes_library, cited)
    assert "▶ p\\. 2" in panel and "giving alms" in panel  # (Markdown-escaped)
    assert not citations_of("Generosity comes first [Dhamma talk p. 9].", cmap)  # no such page: no citation


def test_a_range_of_a_note_is_narrowed_to_the_unit_that_holds_the_claim():
    from chat.pipeline.checks import _narrowed, _replacing
    from chat.pipeline.draft import Line

    def _narrow(text: str, evidence_ref: str) -> str:
        line = Line(text)
        found = _narrowed(line.citations, evidence_ref)
        return line.map_refs(_replacing(*found)).written if found else text

    text = "Walking follows the sitting [Retreat notes ¶1–3]."
    assert _narrow(text, "Retreat notes ¶2") == "Walking follows the sitting [Retreat notes ¶2]."
    precise = "Walking follows the sitting [Retreat notes ¶1]."
    assert _narrow(precise, "Retreat notes ¶2") == precise  # the model's choice stands
    other = "Walking follows the sitting [Dhamma talk pp. 1–2]."
    assert _narrow(other, "Retreat notes ¶2") == other  # another document
