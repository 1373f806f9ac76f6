"""Evidence windows: the segments of a retrieved text that answer the question, shown whole with their references."""

from __future__ import annotations

import pytest

from indexing.vocabulary import is_heading
from tools.search.windows import beside, opening, question_words, rank_windows

from helpers_tools import open_library


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "agent-index")


def test_the_window_that_answers_comes_first_with_its_reference(library):
    [best, *_] = rank_windows(library, library.evidence, "Who would saw you limb from limb?", ["mn21", "sn35.28"])
    assert best.sutta_id == "MN 21" and best.ref.startswith("MN 21:20.1")
    assert "two-handled saw" in best.text  # the segment whole, not a clip


def test_question_words_leave_out_what_every_question_says():
    [word] = question_words("What does the Buddha say in the discourse about the bandits?")
    assert word.startswith("bandit")


def test_the_opening_answers_who_and_where(library):
    first = opening(library.evidence, "sn35.28")
    assert first is not None and "Gayā Head" in first.text and not is_heading(first.seg_ids[0])
    ranked = rank_windows(library, library.evidence, "Who was listening to the sermon?", ["sn35.28"], opening=True)
    assert ranked[0].seg_ids[0] == first.seg_ids[0]


def test_the_next_lines_cross_into_the_next_verse(library):
    last = library.evidence.sutta("dhp1").segments[-1].seg_id
    [after] = beside(library, library.evidence, last, after=True, limit=1)
    assert after.sutta_id == "Dhp 2" and "pure intent" in after.text
    [before] = beside(library, library.evidence, "dhp2:1", after=False, limit=1)
    assert before.sutta_id == "Dhp 1"


def test_windows_of_one_text_do_not_overlap_and_respect_the_limit(library):
    ranked = rank_windows(library, library.evidence, "truth of suffering origin cessation", ["dn22"], limit=3)
    assert len(ranked) == 3
    assert not any(a.overlaps(b) for i, a in enumerate(ranked) for b in ranked[i + 1:])


def test_a_verse_is_cited_by_its_lines_and_the_citation_parses(library):
    [window] = rank_windows(library, library.evidence, "hatred is never laid to rest by hate", ["dhp4"], limit=1)
    assert window.ref.startswith("Dhp 4:")

    from tools.references import find_citations
    assert find_citations(f"[{window.ref}]")[0].ok
