import pytest

from tools.references import find_references, parse_reference


@pytest.mark.parametrize(
    "text, sutta_id, segment",
    [
        ("MN 21", "MN 21", None),
        ("mn21", "MN 21", None),
        ("M 21", "MN 21", None),
        ("Majjhima Nikaya 21", "MN 21", None),
        ("Majjhima Nikāya 21", "MN 21", None),
        ("Majjhima 21", "MN 21", None),
        ("SN 35.28", "SN 35.28", None),
        ("S 35:28", "SN 35.28", None),
        ("SN35.28", "SN 35.28", None),
        ("Saṁyutta Nikāya 56.11", "SN 56.11", None),
        ("AN 4.159", "AN 4.159", None),
        ("A 4.159", "AN 4.159", None),
        ("an4.159", "AN 4.159", None),
        ("DN 22", "DN 22", None),
        ("D 22", "DN 22", None),
        ("Dīgha Nikāya 22", "DN 22", None),
        ("Dhp 1", "Dhp 1", None),
        ("Dhp 1-20", "Dhp 1-20", None),
        ("Dhp 1–20", "Dhp 1-20", None),
        ("Dhammapada 1", "Dhp 1", None),
        ("mn21:3.1", "MN 21", "3.1"),
        ("MN 21:3.1", "MN 21", "3.1"),
        ("mn21:3.1-3.5", "MN 21", "3.1-3.5"),
        ("sn35.28:1.3", "SN 35.28", "1.3"),
        ("SN 12.104-114", "SN 12.104-114", None),
    ],
)
def test_each_written_form_parses(text, sutta_id, segment):
    ref = parse_reference(text)
    assert ref is not None, text
    assert ref.sutta_id == sutta_id
    assert ref.segment == segment
    assert (ref.start, ref.end) == (0, len(text))


def test_references_inside_a_question_keep_their_spans():
    text = "Compare MN 10 with Dīgha Nikāya 22 and S 35:28, then read mn21:3.1-3.5."
    refs = find_references(text)
    assert [str(r) for r in refs] == ["MN 10", "DN 22", "SN 35.28", "MN 21:3.1-3.5"]
    assert [text[r.start : r.end] for r in refs] == ["MN 10", "Dīgha Nikāya 22", "S 35:28", "mn21:3.1-3.5"]


@pytest.mark.parametrize(
    "text",
    [
        "It got a 4.5 rating from critics.",
        "A 4.5 rating is fine.",
        "an 8.5 score",
        "I ate an apple and M 2.5 of something",
        "Part A 3.5 percent",
    ],
)
def test_ordinary_english_is_not_a_reference(text):
    assert find_references(text) == []


def test_single_letters_need_capitals_and_the_right_number_shape():
    assert find_references("a 4.159 and s 35.28 and m 21") == []
    assert [str(r) for r in find_references("see M 21 and A 4.159")] == ["MN 21", "AN 4.159"]
    assert find_references("DN 2.3") == []  # DN numbers have no dot
    assert find_references("SN 35") == []  # a saṁyutta, not a sutta


def test_range_and_uid_helpers():
    ref = parse_reference("SN 12.104-114")
    assert ref.uid == "sn12.104-114" and ref.is_range and ref.span() == (104, 114)
    assert parse_reference("Dhp 1-20").span() == (1, 20)
    assert parse_reference("what is MN 21 about") is None  # more than a reference


@pytest.mark.parametrize(
    "text, printed, uid",
    [
        ("Kp 5", "Kp 5", "kp5"),
        ("Ud 2.1", "Ud 2.1", "ud2.1"),
        ("ud2.1", "Ud 2.1", "ud2.1"),
        ("Udāna 2.1", "Ud 2.1", "ud2.1"),
        ("Iti 27", "Iti 27", "iti27"),
        ("Itivuttaka 27", "Iti 27", "iti27"),
        ("Snp 1.4", "Snp 1.4", "snp1.4"),
        ("Sutta Nipāta 1.4", "Snp 1.4", "snp1.4"),
        ("Thag 1.1", "Thag 1.1", "thag1.1"),
        ("Theragāthā 16.8", "Thag 16.8", "thag16.8"),
        ("Thig 1.1", "Thig 1.1", "thig1.1"),
        ("Bu Pj 3", "Bu Pj 3", "pli-tv-bu-vb-pj3"),
        ("bu pj 3", "Bu Pj 3", "pli-tv-bu-vb-pj3"),
        ("BuPj3", "Bu Pj 3", "pli-tv-bu-vb-pj3"),
        ("pli-tv-bu-vb-pj3", "Bu Pj 3", "pli-tv-bu-vb-pj3"),
        ("Bu Ss 13", "Bu Ss 13", "pli-tv-bu-vb-ss13"),
        ("Bu Pc 1", "Bu Pc 1", "pli-tv-bu-vb-pc1"),
        ("Bi Pj 5", "Bi Pj 5", "pli-tv-bi-vb-pj5"),
        ("Bu As 1-7", "Bu As 1-7", "pli-tv-bu-vb-as1-7"),
        ("Pārājika 1", "Bu Pj 1", "pli-tv-bu-vb-pj1"),
        ("Bhikkhunī Pārājika 5", "Bi Pj 5", "pli-tv-bi-vb-pj5"),
        ("Kd 10", "Kd 10", "pli-tv-kd10"),
        ("Khandhaka 10", "Kd 10", "pli-tv-kd10"),
        ("Pvr 1", "Pvr 1", "pli-tv-pvr1"),
        ("Pvr 1.1", "Pvr 1.1", "pli-tv-pvr1.1"),
        ("Bu Pm", "Bu Pm", "pli-tv-bu-pm"),
        ("bi pm", "Bi Pm", "pli-tv-bi-pm"),
        ("Ud 2.1:1.1", "Ud 2.1:1.1", "ud2.1"),
        ("Bu Pj 3:1.1.1", "Bu Pj 3:1.1.1", "pli-tv-bu-vb-pj3"),
        ("pli-tv-bu-vb-pj1:5.1.1-5.1.4", "Bu Pj 1:5.1.1-5.1.4", "pli-tv-bu-vb-pj1"),
        ("Thig 1.1:1.1–1.4", "Thig 1.1:1.1-1.4", "thig1.1"),
        ("Bu Pm:2.1", "Bu Pm:2.1", "pli-tv-bu-pm"),
    ],
)
def test_new_books_in_free_text_parse_and_print(text, printed, uid):
    ref = parse_reference(text)
    assert ref is not None, text
    assert (str(ref), ref.uid, (ref.start, ref.end)) == (printed, uid, (0, len(text)))


def test_new_forms_inside_a_question():
    text = "Does Snp 1.4 agree with SN 7.11, and what do bu pj 2 and Kd 10 say? Read MN 21."
    assert [str(r) for r in find_references(text)] == ["Snp 1.4", "SN 7.11", "Bu Pj 2", "Kd 10", "MN 21"]
    assert find_references("the Pātimokkha and the pārājika rules") == []  # names without a number
    assert [str(r) for r in find_references("Bhikkhunī Pārājika 5 and Pārājika 1")] == ["Bi Pj 5", "Bu Pj 1"]


def test_collections_named_in_words_and_in_arguments():
    from tools.references import collection_code, collection_hints

    assert collection_hints("in the Long and the Middle Discourses") == ["DN", "MN"]
    assert collection_hints("in the Sutta Nipāta") == ["KN"]
    assert collection_hints("in the Khandhakas") == ["Kd"]
    assert [collection_code(v) for v in ("MN", "mn", "Majjhima Nikāya", "Dhp", "kd", "Parivāra", "all", "", "XY")] == \
        ["MN", "MN", "MN", "KN", "Kd", "Pvr", None, None, None]


def test_a_note_or_a_pdf_is_cited_by_title_and_place():
    from indexing.vocabulary import document_ref
    from tools.references import find_citations, parse_bracket, strip_citations

    # written by the one vocabulary function, read back by the one parser
    assert document_ref("Retreat notes", [1]) == "Retreat notes ¶2"
    assert document_ref("Retreat notes", [1, 2]) == "Retreat notes ¶2–3"
    assert document_ref("Dhamma talk", [4, 9], [3, 4]) == "Dhamma talk pp. 3–4"
    assert document_ref("Notes [draft]; v2", [0]) == "Notes draft v2 ¶1"  # no citation delimiters in a title
    refs = parse_bracket("MN 21:3.1; Retreat notes ¶2–3; Sīla, samādhi and paññā p. 4")
    assert [(r.ok, r.sutta_id, r.document, r.place, r.by_page) for r in refs] == [
        (True, "MN 21", None, None, False),
        (True, None, "Retreat notes", (2, 3), False),
        (True, None, "Sīla, samādhi and paññā", (4, 4), True),
    ]
    assert [r.display() for r in refs] == ["MN 21:3.1", "Retreat notes ¶2–3", "Sīla, samādhi and paññā p. 4"]
    assert refs[2].names_document("Sila, Samadhi and Panna") and refs[2].covers(7, 4) and not refs[2].covers(7, 5)
    assert refs[1].covers(1, None) and refs[1].covers(2, None) and not refs[1].covers(3, None)
    text = "Walking is slow [Retreat notes ¶2]; giving comes first [Dhamma talk pp. 3-4]. A bracket [sic] stays."
    assert [c.display() for c in find_citations(text)] == ["Retreat notes ¶2", "Dhamma talk pp. 3–4"]
    assert strip_citations(text) == "Walking is slow; giving comes first. A bracket [sic] stays."
    assert not parse_bracket("Retreat notes ¶3-2")[0].ok  # a place that runs backwards
    assert not parse_bracket("Retreat notes")[0].ok  # a bare title is no reference
