import pytest

from tools.errors import ToolError
from tools.passages import Passage
from tools.texts.expander import expand, merge_windows

from helpers_tools import open_library


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "tools-index")


def test_merge_windows_joins_overlapping_and_adjacent():
    assert merge_windows([5], 2) == [(3, 7)]
    assert merge_windows([0], 2) == [(0, 2)]
    assert merge_windows([2, 4], 1) == [(1, 5)]  # overlap
    assert merge_windows([2, 5], 1) == [(1, 6)]  # 3 and 4 touch
    assert merge_windows([2, 6], 1) == [(1, 3), (5, 7)]


def _mn10_chunks(lib):
    chunks = lib.docstore.chunks_of("mn10")
    assert len(chunks) >= 4, "the MN 10 fixture should make several chunks"
    return chunks


def test_neighbours_of_two_close_hits_become_one_block_without_repeats(lib):
    chunks = _mn10_chunks(lib)
    hits = [Passage.from_chunk(chunks[1]), Passage.from_chunk(chunks[2])]
    blocks = expand(lib, hits, window=1)
    assert len(blocks) == 1
    block = blocks[0]
    indexes = [p.chunk_index for p in block.passages]
    assert indexes == list(range(0, min(4, len(chunks))))
    assert len(set(p.chunk_id for p in block.passages)) == len(block.passages)
    assert [p.is_hit for p in block.passages][:4] == [False, True, True, False][: len(indexes)]
    assert block.segment_start == chunks[0].segment_start
    assert block.segment_end == block.passages[-1].segment_end
    assert block.ref.startswith("MN 10:1.1–")


def test_window_zero_returns_only_the_hits_and_far_hits_stay_apart(lib):
    chunks = _mn10_chunks(lib)
    first, last = chunks[0], chunks[-1]
    blocks = expand(lib, [Passage.from_chunk(first), Passage.from_chunk(last)], window=0)
    assert [[p.chunk_index for p in b.passages] for b in blocks] == [[first.chunk_index], [last.chunk_index]]
    assert all(p.is_hit for b in blocks for p in b.passages)


def test_default_window_comes_from_settings_and_documents_stay_separate(lib):
    chunks = _mn10_chunks(lib)
    other = lib.docstore.chunks_of("sn35.28")[0]
    blocks = expand(lib, [Passage.from_chunk(chunks[-1]), Passage.from_chunk(other)])
    assert [b.doc_id for b in blocks] == ["mn10", "sn35.28"]
    n = lib.settings.context_window
    assert blocks[0].first_index == max(chunks[-1].chunk_index - n, 0)
    assert [p.is_hit for p in blocks[0].passages].count(True) == 1 and blocks[0].passages[-1].is_hit


def test_a_negative_window_is_refused(lib):
    chunks = _mn10_chunks(lib)
    with pytest.raises(ToolError):
        expand(lib, [Passage.from_chunk(chunks[0])], window=-1)


def test_one_sided_window_reads_only_what_comes_after(lib):
    chunks = _mn10_chunks(lib)
    [block] = expand(lib, [Passage.from_chunk(chunks[1])], before=0, after=2)
    assert [p.chunk_index for p in block.passages] == [1, 2, 3]
    assert [p.is_hit for p in block.passages] == [True, False, False]
    assert merge_windows([2, 5], 0, 2) == [(2, 7)]
    assert merge_windows([2, 6], 0, 2) == [(2, 4), (6, 8)]
