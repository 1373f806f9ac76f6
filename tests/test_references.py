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
