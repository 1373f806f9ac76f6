import pytest

from tools.errors import ToolError, UnknownReferenceError
from tools.texts.lookup import lookup

from helpers_tools import open_library


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "tools-index")


def test_lookup_returns_titles_collection_and_opening_with_pali(lib):
    res = lookup(lib, "MN 10")
    assert res.sutta_id == "MN 10"
    assert res.title == "Mindfulness Meditation"
    assert res.title_pali == "Satipaṭṭhānasutta"
    assert res.collection.startswith("Middle Discourses")
    assert res.n_segments == 22  # body segments with text (one abbreviated segment is empty)
    assert len(res.rows) == 8 and res.rows[0].seg_id == "mn10:1.1"
    assert res.rows[0].en == "So I have heard." and res.rows[0].pali == "Evaṁ me sutaṁ—"
    assert all(r.en for r in res.rows)
    # the passages are the chunks that hold the rows shown, so answers can cite them
    covered = {p.chunk_id for p in res.passages}
    assert covered and all(p.doc_id == "mn10" for p in res.passages)


@pytest.mark.parametrize("text", ["mn10", "M 10", "Majjhima Nikaya 10", "in MN 10 please"])
def test_written_forms_reach_the_same_sutta(lib, text):
    assert lookup(lib, text).doc_ids == ["mn10"]


def test_segment_range_narrows_the_rows(lib):
    res = lookup(lib, "MN 10", segments="3.2-3.4")
    assert [r.seg_id for r in res.rows] == ["mn10:3.2", "mn10:3.3", "mn10:3.4"]
    assert lookup(lib, "mn10:3.2-3.4").rows == res.rows
    section = lookup(lib, "MN 10", segments="4")
    assert [r.seg_id for r in section.rows] == ["mn10:4.1", "mn10:4.2", "mn10:4.4", "mn10:4.5"]  # 4.3 is empty


def test_sutta_inside_a_range_uid_resolves_to_that_document(lib):
    res = lookup(lib, "SN 12.110")
    assert res.doc_ids == ["sn12.104-114"]
    assert res.title == "A Teacher on Rebirth"
    assert "SN 12.110" in res.sutta_id and "SN 12.104-114" in res.sutta_id
    assert lookup(lib, "SN 12.95").doc_ids == ["sn12.93-103"]


def test_sutta_from_a_range_file_has_its_own_document(lib):
    res = lookup(lib, "AN 1.5")
    assert res.doc_ids == ["an1.5"] and res.sutta_id == "AN 1.5"
    assert "touch" in res.rows[0].en


def test_dhammapada_verse_range(lib):
    res = lookup(lib, "Dhp 1-3")
    assert res.doc_ids == ["dhp1", "dhp2", "dhp3"]
    assert [r.seg_id for r in res.rows][:4] == ["dhp1:1", "dhp1:2", "dhp1:3", "dhp2:1"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("MN 175", "There is no MN 175: MN has 10–21"),
        ("DN 40", "There is no DN 40: DN has 22–22"),
        ("SN 57.1", "There is no SN 57.1: SN has saṁyuttas 12–56"),
        ("SN 12.300", "There is no SN 12.300: SN 12 has 93–114"),
        ("MN 11", "There is no MN 11: MN has 10–21"),  # between two suttas the tiny index holds: no neighbour
    ],
)
def test_unknown_ids_say_no_such_sutta_with_the_valid_range(lib, text, expected):
    with pytest.raises(UnknownReferenceError) as err:
        lookup(lib, text)
    assert str(err.value).startswith(expected)


def test_unknown_segment_range_and_non_references(lib):
    with pytest.raises(UnknownReferenceError, match="has no segments 99.1"):
        lookup(lib, "MN 10", segments="99.1")
    with pytest.raises(ToolError, match="is not a reference; write it like MN 21"):
        lookup(lib, "the fire sermon")
    with pytest.raises(ToolError, match="should look like"):
        lookup(lib, "MN 10", segments="abc")
