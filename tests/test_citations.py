"""Inline citations and sentence splitting for the claim verifier."""

from __future__ import annotations

from tools.language.sentences import split_sentences
from tools.references import find_citations, parse_ref, strip_citations


def test_parse_forms():
    r = parse_ref("MN 21:20.1")
    assert (r.sutta_id, r.seg_start, r.seg_end, r.ok) == ("MN 21", "20.1", None, True)
    r = parse_ref("MN 21:3.1–3.4")
    assert (r.sutta_id, r.seg_start, r.seg_end) == ("MN 21", "3.1", "3.4")
    r = parse_ref("mn 21:3.1-mn 21:3.4")
    assert (r.sutta_id, r.seg_start, r.seg_end) == ("MN 21", "3.1", "3.4")
    assert parse_ref("dhp 5").sutta_id == "Dhp 5"
    assert parse_ref("SN 12.104-114").sutta_id == "SN 12.104-114"
    assert parse_ref("SN 35.28").uid == "sn35.28"
    assert not parse_ref("MN twenty").ok and parse_ref("MN twenty").error == "does not parse"


def test_a_cited_verse_line_parses_though_running_text_does_not_name_verse_lines():
    # the pipeline cites the lines of a verse it showed (`Dhp 183:1–4`); without them an answer about a verse cited
    # nothing, and "the next verse" had no passage to read on from
    from tools.references import find_references

    r = parse_ref("Dhp 183:1–4")
    assert (r.sutta_id, r.seg_start, r.seg_end, r.ok) == ("Dhp 183", "1", "4", True)
    assert [c.sutta_id for c in find_citations("Evil is not done [Dhp 183:1].")] == ["Dhp 183"]
    assert [r.text for r in find_references("see Dhp 1:2")] == ["Dhp 1"]


def test_find_several_in_one_bracket_and_ignore_non_citations():
    refs = find_citations("Both say so [AN 4.159; MN 10:2.1], as noted [sic] and [ibid].")
    assert [r.sutta_id for r in refs] == ["AN 4.159", "MN 10"]
    refs = find_citations("A bad one [XY 12] and a good one [SN 35.28].")
    assert [(r.sutta_id, r.ok) for r in refs] == [(None, False), ("SN 35.28", True)]


def test_strip_citations_keeps_other_brackets():
    assert strip_citations("Form is like foam [SN 22.95:9.1]. See [sic].") == "Form is like foam. See [sic]."


def test_split_sentences_abbreviations_numbers_quotes_and_trailing_citations():
    text = ("Here is what the texts say: Ven. Sāriputta taught at Sāvatthī, e.g. in MN 9 [MN 9:1.1]. "
            "The last words were: “Conditions fall apart. Persist with diligence.” [DN 16:6.7.3] "
            "Hatred is never laid to rest by hate.[Dhp 5] Would you like more?")
    sentences = split_sentences(text)
    assert [s.plain for s in sentences] == [
        "Here is what the texts say: Ven. Sāriputta taught at Sāvatthī, e.g. in MN 9.",
        "The last words were: “Conditions fall apart. Persist with diligence.”",
        "Hatred is never laid to rest by hate.",
        "Would you like more?",
    ]
    assert [[c.raw for c in s.citations] for s in sentences] == [["MN 9:1.1"], ["DN 16:6.7.3"], ["Dhp 5"], []]


def test_a_quotation_in_straight_quotes_is_not_split_at_its_own_stops():
    # the say grammar lets the model quote with straight quotes too; "Excellent!" inside is no sentence of its own
    text = ('Sigālaka says, "Excellent, sir! Excellent! The Buddha has made the teaching clear." [DN 31:35.1] '
            'He goes for refuge [DN 31:35.2].')
    assert [s.plain for s in split_sentences(text)] == [
        'Sigālaka says, "Excellent, sir! Excellent! The Buddha has made the teaching clear."',
        "He goes for refuge.",
    ]
    # a quoted word between two sentences does not join them
    assert len(split_sentences('A "word" here. And "another" there.')) == 2
    # a quotation closed after a space ('… arousing. "') ends its sentence at its own last stop
    spaced = ('One who "keeps clinging to sights, which are arousing. " [SN 35.63:2.2] '
              'This is the definition [SN 35.63:2.6].')
    assert [s.plain for s in split_sentences(spaced)] == ['One who "keeps clinging to sights, which are arousing. "',
                                                         "This is the definition."]


def test_split_lines_and_bullets():
    text = "Key points:\n- Form is like foam [SN 22.95].\n- Feeling is like a bubble [SN 22.95]\n\nSee also MN 22."
    assert [s.plain for s in split_sentences(text)] == [
        "Key points:", "Form is like foam.", "Feeling is like a bubble", "See also MN 22."]


def test_citation_on_its_own_after_a_sentence_joins_it():
    sentences = split_sentences("Form is like foam. [SN 22.95:9.1] Feeling is like a bubble. [SN 22.95:9.2]")
    assert [(s.plain, [c.raw for c in s.citations]) for s in sentences] == [
        ("Form is like foam.", ["SN 22.95:9.1"]), ("Feeling is like a bubble.", ["SN 22.95:9.2"])]


def test_new_books_as_citations_parse_and_keep_their_display_ids():
    refs = find_citations("Sleep softly [Thig 1.1:1.1–1.4]; the potter [Bu Pj 2:1.1.1; Kd 10:1.1.1] and [Bu Pm:2.1], "
                          "the farmer [Snp 1.4:2.1, Ud 2.1].")
    assert [(r.sutta_id, r.seg_start, r.seg_end, r.uid) for r in refs] == [
        ("Thig 1.1", "1.1", "1.4", "thig1.1"),
        ("Bu Pj 2", "1.1.1", None, "pli-tv-bu-vb-pj2"),
        ("Kd 10", "1.1.1", None, "pli-tv-kd10"),
        ("Bu Pm", "2.1", None, "pli-tv-bu-pm"),
        ("Snp 1.4", "2.1", None, "snp1.4"),
        ("Ud 2.1", None, None, "ud2.1"),
    ]
    r = parse_ref("bu pj 2:1.1.1–bu pj 2:1.1.5")
    assert (r.sutta_id, r.seg_start, r.seg_end) == ("Bu Pj 2", "1.1.1", "1.1.5")
    assert strip_citations("The potter took timber [Bu Pj 2:1.1.1].") == "The potter took timber."
