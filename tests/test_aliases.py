import time

import pytest

from tools.aliases import AliasIndex, core_key

from helpers_tools import open_library


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "tools-index")


def test_core_key_folds_and_drops_sutta():
    assert core_key("Kakacūpamasutta") == "kakacupama"
    assert core_key("Kakacūpama Sutta") == "kakacupama"
    assert core_key("The Simile of the Saw") == "simile of the saw"


@pytest.mark.parametrize(
    "name", ["Kakacūpamasutta", "Kakacūpama Sutta", "kakacupama", "KAKACUPAMA SUTTA", "The Simile of the Saw"]
)
def test_title_forms_resolve(lib, name):
    res = lib.aliases.resolve(name)
    assert [c.sutta_id for c in res.candidates][:1] == ["MN 21"]
    assert not res.ambiguous
    assert res.candidates[0].score >= 90


def test_titles_come_from_the_docstore_not_only_the_csv(lib):
    # Dhammacakkappavattanasutta and "Rolling Forth the Wheel of Dhamma" are in no nicknames row here
    assert lib.aliases.resolve("Dhammacakkappavattana Sutta").candidates[0].sutta_id == "SN 56.11"
    assert lib.aliases.resolve("Rolling Forth the Wheel of Dhamma").candidates[0].sutta_id == "SN 56.11"


def test_alias_embedded_in_a_question(lib):
    res = lib.aliases.resolve("what does the fire sermon say is burning?")
    assert [c.sutta_id for c in res.candidates] == ["SN 35.28"]
    assert res.matches[0].text == "the fire sermon"
    res = lib.aliases.resolve("In the Kakacūpama Sutta, what should one do when bandits saw off one's limbs?")
    assert [c.sutta_id for c in res.candidates] == ["MN 21"]


def test_a_title_shared_by_several_suttas_is_reported_as_ambiguous(lib):
    res = lib.aliases.resolve("Satipaṭṭhāna Sutta")
    assert res.ambiguous
    assert {c.sutta_id for c in res.candidates} == {"MN 10", "SN 43.5", "AN 4.274"}
    assert res.candidates[0].sutta_id == "MN 10"  # the curated nickname ranks first, the others are still listed


def test_longer_name_wins_over_the_name_inside_it(lib):
    res = lib.aliases.resolve("How does the Mahāsatipaṭṭhāna Sutta define the origin of suffering?")
    assert [c.sutta_id for c in res.candidates] == ["DN 22"]
    res = lib.aliases.resolve("What does the maha satipatthana sutta say?")
    assert res.candidates and res.candidates[0].sutta_id == "DN 22"


def test_generic_titles_do_not_fire_on_ordinary_words(lib):
    # "Burning" is the English title of SN 35.28 in the fixture; as a plain word it names nothing
    assert lib.aliases.resolve("Is the house burning down?").candidates == []
    assert lib.aliases.resolve("mindfulness meditation for beginners").candidates == []
    # with a cue it does
    assert lib.aliases.resolve("What is taught in the Burning Sutta?").candidates[0].sutta_id == "SN 35.28"
    assert lib.aliases.resolve('the discourse called "Burning"').candidates[0].sutta_id == "SN 35.28"


def test_misspelt_names_are_fuzzy_matched_but_nonsense_returns_nothing(lib):
    res = lib.aliases.resolve("Kakacupamma Sutta")
    assert res.candidates[0].sutta_id == "MN 21" and res.candidates[0].score < 100
    assert lib.aliases.resolve("Quantum chromodynamics sutta").candidates == []
    assert lib.aliases.resolve("What do cats eat?").candidates == []


def test_resolution_is_fast(lib):
    index: AliasIndex = lib.aliases
    questions = ["what does the fire sermon say is burning?",
                 "Which discourse compares the mind to a monkey in a forest grabbing one branch after another, "
                 "letting go of one and grabbing another?"] * 25
    started = time.perf_counter()
    for q in questions:
        index.resolve(q)
    assert (time.perf_counter() - started) / len(questions) < 0.02
