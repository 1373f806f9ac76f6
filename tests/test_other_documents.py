"""Documents that are not SuttaCentral texts (Markdown notes, PDFs) flow through every path of an answer: the
quote for an uncited draft, the citations, the side panel and the trace."""

from __future__ import annotations

import pytest

from chat.pipeline.answer import Citation
from indexing.pipeline import ingest
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.passages import Passage

from conftest import FakeEmbedding

NOTES = """# Retreat notes

## Walking meditation

Walking meditation is practised on a straight path of twenty paces, slowly, attending to the lifting and placing
of each foot. Walking meditation in the evening follows the sitting.
"""


@pytest.fixture(scope="module")
def notes_library(tmp_path_factory):
    root = tmp_path_factory.mktemp("notes")
    (root / "corpus").mkdir()
    (root / "corpus" / "retreat-notes.md").write_text(NOTES, encoding="utf-8")
    settings = ScholarSettings(_env_file=None, index_dir=root / "index", corpus_paths=[root / "corpus"])
    embed = FakeEmbedding(model_name="fake-hash-64")
    ingest(settings, [root / "corpus"], embed_model=embed, progress=False)
    library = Library.open(settings, embed_model=embed)
    yield library
    Library.forget()


def _passages(library) -> list[Passage]:
    from tools.retriever import search

    found = search(library, "walking meditation paces", k=5, mode="bm25").passages
    assert found and all(p.doc_id.startswith("markdown:") for p in found)
    return found


def test_evidence_from_a_markdown_passage_is_quoted_under_its_title(notes_library):
    from chat.pipeline.compose import key_lines
    from tools.windows import rank_windows

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
    assert cited.ref == "Retreat notes" and f"[{cited.ref}]" in answer.answer and "twenty paces" in cited.excerpt
    from chat.ui.sources import citation_panel

    assert "twenty paces" in citation_panel(notes_library, cited)


def test_the_side_panel_of_a_markdown_passage_shows_its_text(notes_library, caplog):
    from chat.ui.sources import citation_panel

    p = _passages(notes_library)[0]
    panel = citation_panel(notes_library, Citation(ref=p.ref, sutta_id=None, title=p.title, excerpt=p.text[:80],
                                                   chunk_id=p.chunk_id))
    assert "twenty paces" in panel
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
