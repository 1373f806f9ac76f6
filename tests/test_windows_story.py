"""Windows that follow how a text tells things: a question is read with its reply, and a reader asking about a
simile is shown where the simile begins, not only the lines that repeat the question's words."""

from __future__ import annotations

import pytest

from chat.pipeline.compose import key_windows
from indexing.pipeline import ingest
from indexing.settings import ScholarSettings
from tools.language.words import words
from tools.library import Library
from tools.search.windows import REPLY_CHARS, WINDOW_CHARS, rank_windows

from corpus import write_tree
from fakes import FakeEmbedding

FILLER = "The mendicants sat in silence for a while, and the evening grew cool over the grove by the river. "
SETUP = ("“Vaccha, suppose a fire were burning in front of you, a fire of grass and logs, a bright fire you could see, "
         "a fire whose heat you felt on your face and hands as you sat beside it in the evening, a fire that crackled "
         "and smoked and lit the faces of those around it, a fire you would know was burning. ")
QUESTION = "Suppose that fire went out: in which direction would the fire have gone?” "
REPLY = "“That does not apply. It burned on grass and logs, and when they ran out it was quenched.” "
LEAD_IN = ("Then King Yama, the lord of the dead, seated on his throne in the hall of judgement among the wardens "
           "of hell and their servants, with the lamps burning before him and the wind moving in the rafters, "
           "questions the person, pursuing and pressing and grilling them about the first messenger of the gods, "
           "the one sent among human beings as a warning, and he says to them, ")
SPEECH = "‘Mister, did you not see an elderly woman, bent double, leaning on a staff and trembling as she went?’ "


def _story() -> tuple[dict[str, str], dict[str, str]]:
    en = {
        "sn12.63:0.1": "Linked Discourses 12.63 ",
        "sn12.63:0.2": "With a Child’s Flesh ",
        "sn12.63:1.1": "And how should solid food be regarded? ",
        "sn12.63:1.2": "Suppose a couple set out to cross a desert, taking limited supplies. ",
        "sn12.63:1.3": "They had an only child, dear and beloved. ",
        "sn12.63:1.4": "Their supplies would run out in the middle of the sands. ",
        "sn12.63:1.5": FILLER * 3,
        "sn12.63:1.6": "Then the parents would eat their child’s flesh, weeping for their child, only to cross. ",
        "sn12.63:2.1": SETUP,
        "sn12.63:2.2": QUESTION,
        "sn12.63:2.3": REPLY,
        "sn12.63:3.1": LEAD_IN,
        "sn12.63:3.2": SPEECH,
        "sn12.63:3.3": "‘I saw that, sir.’ ",
    }
    pli = {k: "Pāḷi." for k in en}
    return en, pli


def _named() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """A nun's verses titled with her name alone, and a discourse about nuns that shares more of a question's
    words."""
    verses = {"thig3.2:0.1": "Verses of the Senior Nuns 3.2 ", "thig3.2:0.2": "The Book of the Threes ",
              "thig3.2:0.3": "Uttamā ", "thig3.2:1.1": "I approached a nun in whom I had faith. ",
              "thig3.2:1.2": "I sat cross-legged for seven days without moving. "}
    quarters = {"sn47.10:0.1": "Linked Discourses 47.10 ", "sn47.10:0.2": "The Nuns’ Quarters ",
                "sn47.10:1.1": "Several nuns sit with their minds firmly established. ",
                "sn47.10:1.2": "They have realized a higher distinction in meditation than they had before. "}
    return {"sutta/kn/thig/thig3.2": (verses, {**{k: "Pāḷi." for k in verses}, "thig3.2:0.3": "Uttamātherīgāthā "}),
            "sutta/sn/sn47/sn47.10": (quarters, {k: "Pāḷi." for k in quarters})}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    base = tmp_path_factory.mktemp("story")
    tree = write_tree(base / "suttacentral", {"sutta/sn/sn12/sn12.63": _story(), **_named()})
    settings = ScholarSettings(_env_file=None, index_dir=base / "index", corpus_paths=[tree], chroma_url=None)
    embed = FakeEmbedding(model_name="fake-hash-64", embed_batch_size=16)
    ingest(settings, [tree], embed_model=embed, progress=False)
    return Library.open(settings, embed_model=embed)


def _segments(window) -> list[str]:
    return [s.partition(":")[2] for s in window.seg_ids]


def test_a_question_is_read_with_its_reply_even_past_the_usual_length(library):
    assert len(SETUP + QUESTION) <= WINDOW_CHARS < len(SETUP + QUESTION + REPLY) <= REPLY_CHARS
    [best] = rank_windows(library, library.evidence, "What happens to a burning fire that goes out?", ["sn12.63"],
                          limit=1)
    assert _segments(best) == ["2.1", "2.2", "2.3"] and "does not apply" in best.text


def test_a_line_that_leads_into_speech_is_read_with_the_speech(library):
    assert len(LEAD_IN) <= WINDOW_CHARS < len(LEAD_IN + SPEECH) <= REPLY_CHARS
    [best] = rank_windows(library, library.evidence, "What does King Yama ask about the first messenger?",
                          ["sn12.63"], limit=1)
    assert _segments(best)[:2] == ["3.1", "3.2"] and "elderly woman" in best.text


def test_a_simile_question_is_shown_where_the_simile_begins(library):
    def quoted(question: str) -> str:
        ranked = rank_windows(library, library.evidence, question, ["sn12.63"], limit=4)
        return " ".join(w.text for w in key_windows(ranked))

    assert "Suppose a couple" in quoted("In the simile, why do the parents eat their child?")
    # the same words asked plainly: the lines that hold them are quoted, the simile's opening is not pushed forward
    plain = quoted("Why do the parents eat their child?")
    assert "Suppose a couple" not in plain and "eat their child" in plain


def test_a_name_in_the_title_is_held_by_every_line_of_the_text(library):
    # "Uttamā" is only the title: the verses are hers, and they answer, though the search put the other text first
    [best, *_] = rank_windows(library, library.evidence, "How long did the nun Uttama sit?",
                              ["sn47.10", "thig3.2"], limit=2)
    assert best.sutta_id == "Thig 3.2" and "seven days" in best.text


def test_only_a_name_the_lines_never_use_is_held_by_each_line():
    from types import SimpleNamespace

    from tools.language.words import lowercase_words
    from tools.verification.evidence import SuttaView

    def view(title: str, pali: str, lines: list[str]) -> SuttaView:
        segs = [SimpleNamespace(seg_id=f"x1:1.{i}", tokens=frozenset(words(t))) for i, t in enumerate(lines, 1)]
        doc = SimpleNamespace(title=title, title_pali=pali)
        return SuttaView(doc, segs, frozenset(), frozenset(), lowercase_words(lines))  # type: ignore[arg-type]

    verses = view("Uttamā", "Uttamātherīgāthā", ["I sat cross-legged for seven days."])
    assert verses.named_only_in_title == {"uttama"}
    # the accountant is addressed by name in the lines, and "Accountant" is a translated word, not a name
    talk = view("With Moggallāna the Accountant", "Gaṇakamoggallānasutta", ["Moggallāna, a mendicant trains."])
    assert talk.title_names >= {"moggallana", "accountant"}
    assert talk.named_only_in_title == frozenset()
