"""One analysis of a query, read by the planner and the retriever alike (over the tiny tools index)."""

from __future__ import annotations

import pytest

from tools.search.query import analyse_query

from helpers_tools import open_library


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return open_library(tmp_path_factory.getbasetemp() / "tools-index")


def test_ids_are_resolved_to_the_documents_that_hold_them(lib):
    a = analyse_query(lib, "How do mn21:20.1 and SN 12.110 differ, and what about MN 21?")
    assert [(n.sutta_id, n.source, n.doc_ids) for n in a.named] == [
        ("MN 21", "reference", ["mn21"]), ("SN 12.110", "reference", ["sn12.104-114"])]
    assert a.named[0].reference.segment is None  # the plan looks up the sutta; a segment is the reader's business
    assert a.pinned_docs == ["mn21", "sn12.104-114"]
    assert "mn21" not in a.dense_text.lower() and "12.110" not in a.bm25_text


def test_an_id_the_index_does_not_hold_says_what_exists(lib):
    a = analyse_query(lib, "What does MN 175 say?")
    [named] = a.named
    assert named.doc_ids == [] and named.error and named.error.startswith("There is no MN 175")
    assert a.notes == [named.error] and a.pinned_docs == []


def test_a_nickname_names_its_sutta_and_leaves_the_topic(lib):
    a = analyse_query(lib, "What is burning in the Fire Sermon?")
    [named] = a.named
    assert (named.sutta_id, named.source, named.written, named.doc_ids) == ("SN 35.28", "alias", "the fire sermon",
                                                                            ["sn35.28"])
    assert a.topic == "What is burning in"
    assert a.pinned_docs == ["sn35.28"]


def test_a_name_several_suttas_share_pins_them_but_names_none(lib):
    a = analyse_query(lib, "What does the Satipaṭṭhāna Sutta teach?")
    assert a.named == []
    assert set(a.pinned_docs) == {"mn10", "sn43.5", "an4.274"}


def test_documents_the_caller_resolved_come_first_and_are_not_boosted_again(lib):
    a = analyse_query(lib, "mindfulness of the body in MN 10", pinned=["sn43.5"])
    assert a.pinned_docs[:2] == ["sn43.5", "mn10"] and "sn43.5" not in a.boosted_docs


def test_collections_named_in_words(lib):
    assert analyse_query(lib, "In the Linked Discourses, which sutta is about mindfulness?").collections == ["SN"]


def test_without_names_only_the_words_count(lib):
    a = analyse_query(lib, "the Fire Sermon in MN 21", use_names=False)
    assert a.named == [] and a.pinned_docs == [] and a.boosted_docs == {}
    assert a.dense_text == "the Fire Sermon in MN 21"


def test_a_books_name_names_the_book_not_a_sutta_of_that_title(lib, monkeypatch):
    from tools.search.aliases import AliasCandidate, AliasMatch, AliasResolution

    # on the full index "the Dhammapada" is also AN 4.29's Pali title (Dhammapadasutta); here MN 21 stands in
    real = lib.aliases.resolve

    def resolve(text):
        found = real(text)
        book = AliasCandidate("MN 21", "The Simile of the Saw", "dhammapada", "the dhammapada", 85.0, "title_pali")
        return AliasResolution(text, [AliasMatch("the dhammapada", 2, 4, 85.0, [book]), *found.matches])

    monkeypatch.setattr(lib.aliases, "resolve", resolve)
    a = analyse_query(lib, "What does the Dhammapada say heedfulness is, and what is burning in the Fire Sermon?")
    assert "mn21" not in a.boosted_docs and "mn21" not in a.pinned_docs
    assert a.pinned_docs == ["sn35.28"]  # a sutta's own name in the same question still names it
    assert not any("names MN 21" in n for n in a.notes)


def test_the_kind_of_text_asked_for_is_not_searched_as_a_word(lib):
    # "Better than a thousand verses" is no answer to "Which verse of the Dhammapada ...": the reader names the
    # unit, as "Which discourse ..." does, not the content
    a = analyse_query(lib, "Which verse of the Dhammapada sums up the teaching of the Buddhas?")
    assert "verse" not in a.bm25_text.lower().split() and "teaching" in a.bm25_text
