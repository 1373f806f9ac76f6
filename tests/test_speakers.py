"""Who speaks each line of a dialogue (tools/language/speakers.py), and the check that a sentence gives a line's
words to the one who says them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from indexing.chunking import chunk_document
from indexing.models import SourceDocument, Unit
from indexing.stores.bm25_store import BM25Store
from indexing.stores.docstore import DocStore
from tools.language.sentences import Sentence
from tools.language.speakers import who_speaks
from tools.references import find_citations
from tools.verification.evidence import EvidenceIndex
from tools.verification.verifier import ClaimVerifier, Finding

from fakes import passages_of

# a dialogue told the texts' way: one introduction, then replies untagged, each by the one the last was said to
DIALOGUE = [
    ("1.1", "At one time the Buddha was staying near Sāvatthī in Jeta’s Grove."),
    ("1.2", "King Pasenadi of Kosala sat to one side, and the Buddha said to him,"),
    ("1.3", "“Great king, where are you coming from in the middle of the day?”"),
    ("1.4", "“Sir, I have been busy with the duties of a king, counting the treasury and the granaries.”"),
    ("1.5", "“What do you think, great king? If a mountain came crushing all creatures, what would you do?”"),
    ("1.6", "“Sir, what could I do but practice the teachings and do good deeds?”"),
    ("2.1", "Then a glorious deity went up to the Buddha and said to him:"),
    ("2.2", "“The kings of the world will fall like ripe fruit.”"),
    ("2.3", "Later someone said, “The treasury is full.”"),
]
KNOWN = {"pasenadi", "kosala", "savatthi", "jeta"}


def test_an_introduction_names_the_speaker_and_the_replies_alternate():
    speakers = who_speaks([text for _, text in DIALOGUE], KNOWN)
    assert speakers[:2] == [None, None]  # narration
    assert speakers[2] == "buddha"  # "the Buddha said to him," (not the king named first, nor Kosala)
    assert speakers[3] == "pasenadi"  # the reply of the one spoken to
    assert speakers[4] == "buddha"
    assert speakers[5] == "pasenadi"
    assert speakers[7] == "~deity"  # known only as a deity: not the Buddha, whoever it is
    assert speakers[8] == ""  # "someone": the text does not say


def test_a_quotation_that_calls_someone_is_not_theirs():
    # untagged, the reply would be Rāhula's; it calls him by name, so it is the one who spoke before
    lines = ["Then the Buddha said to Rāhula,", "“Do you see this water?”", "“Yes, sir.”",
             "“Rāhula, that is how little is left.”"]
    assert who_speaks(lines, {"rahula"}) == [None, "buddha", "rahula", "buddha"]
    # "Sir" is said to any senior monk: it takes no speaker from the Buddha but gives him none either
    asked = ["The king went over to Aṅgulimāla and said,", "“Sir, are you Aṅgulimāla?”", "“Yes, great king.”"]
    assert who_speaks(asked, {"angulimala"}) == [None, "~king", "angulimala"]
    # a pronoun names no one: the speaker is unknown
    assert who_speaks(["He went up and said,", "“Good.”"], set()) == [None, ""]


def _store(tmp_path: Path):
    store = DocStore(tmp_path / "docstore.sqlite")
    units = [Unit(text=text, ref=f"sn3.99:{local}") for local, text in DIALOGUE]
    doc = SourceDocument(doc_id="sn3.99", title="The Mountain", source_path="/mem/sn3.99.json", kind="sutta",
                         units=units, sutta_id="SN 3.99", collection="SN", book="SN")
    chunks = chunk_document(doc, target_chars=120, max_chars=200)
    store.replace_sources([(doc.source_path, [doc], chunks, None)])
    bm25 = BM25Store(tmp_path / "bm25")
    bm25.build([(c.chunk_id, c.embedding_text()) for c in chunks])
    return store, bm25


@pytest.fixture
def dialogue(tmp_path: Path):
    store, bm25 = _store(tmp_path)
    yield store, bm25
    store.close()


def _verify(stores, text: str):
    store, bm25 = stores
    plain = re.sub(r"\s*\[[^\]]*\]", "", text)
    return ClaimVerifier(EvidenceIndex(store, bm25)).verify(
        [Sentence(plain, find_citations(text))], passages_of(store, "sn3.99"), strict=True).verdicts[0]


def test_a_sentence_that_gives_the_king_s_reply_to_the_buddha_does_not_stand(dialogue):
    wrong = _verify(dialogue, "The Buddha tells King Pasenadi to practice the teachings and do good deeds "
                              "[SN 3.99:1.6].")
    assert wrong.verdict == "unsupported" and wrong.finding is Finding.WORDS_GIVEN_TO_ANOTHER, wrong.reason
    right = _verify(dialogue, "King Pasenadi says he could only practice the teachings and do good deeds "
                              "[SN 3.99:1.6].")
    assert right.verdict == "supported", right.reason
    own = _verify(dialogue, "The Buddha asks King Pasenadi what he would do if a mountain came crushing all "
                            "creatures [SN 3.99:1.5].")
    assert own.verdict == "supported", own.reason
    # a deity's words are not the Buddha's
    deity = _verify(dialogue, "The Buddha says that the kings of the world will fall like ripe fruit [SN 3.99:2.2].")
    assert deity.finding is Finding.WORDS_GIVEN_TO_ANOTHER, deity.reason
    # whose words these are the text does not say: nothing is found against the sentence
    unknown = _verify(dialogue, "The Buddha says that the treasury is full [SN 3.99:2.3].")
    assert unknown.finding is not Finding.WORDS_GIVEN_TO_ANOTHER, unknown.reason


def test_a_tag_after_a_quotation_names_who_said_it_and_what_follows():
    # the Sutta Nipāta's way: the first words, then "said X," and the rest of the same speech
    lines = ["“To the imperturbable, the seer of the root,”", "said Venerable Puṇṇaka,",
             "“I have come with a question.”", "“Whatever seers and men,”", "replied the Buddha,",
             "“performed sacrifices bound to old age.”", "“Yes, sir,” replied those mendicants. They did as the Buddha "
             "asked."]
    assert who_speaks(lines, {"punnaka"}) == ["punnaka", None, "punnaka", "buddha", None, "buddha", "~mendicants"]


def test_the_lines_of_a_text_are_named_by_who_says_them_as_the_text_writes_the_name(dialogue):
    store, bm25 = dialogue
    index = EvidenceIndex(store, bm25)
    voices = index.voices("sn3.99", ["sn3.99:1.2", "sn3.99:1.3", "sn3.99:1.4", "sn3.99:2.2", "sn3.99:2.3"])
    # narration, the Buddha, the king as the text names him; a deity and "someone" are named by no one
    assert voices == [None, "the Buddha", "King Pasenadi", None, None]


def test_a_story_that_begins_is_narration_and_a_reply_goes_to_the_one_spoken_to_by_either_name():
    lines = ["“This will affect people’s confidence …", "At one time Venerable Mahākaccāna was staying in Avantī.",
             "On one occasion Soṇa went to Mahākaccāna, bowed, sat down,", "and said,",
             "“Please give me the going forth.”", "“It’s difficult, Soṇa, to live the spiritual life.”"]
    # a mark left open before a story begins does not make the story speech; "and said," goes on from the line before
    assert who_speaks(lines, {"mahakaccana", "sona", "avanti"}) == ["", None, None, None, "sona", "mahakaccana"]
    # Mahāpajāpati Gotamī is one person: the one she speaks to is the Buddha, and he replies
    named = ["Then Mahāpajāpati Gotamī went up to the Buddha, bowed, and said,",
             "“Sir, please allow women to go forth.”", "“Let it be, Gotamī, don’t pursue this idea.”"]
    assert who_speaks(named, {"mahapajapati", "gotami"}) == [None, "gotami", "buddha"]


def test_whose_answer_a_question_asks_for():
    from tools.language.speakers import replier

    assert replier("How did the Buddha answer Devadatta's five demands about the forest?") == "buddha"
    assert replier("When Jāṇussoṇi asked whether gifts reach the departed, what did the Blessed One reply?") == "buddha"
    assert replier("How did the nun Rohinī answer her father's charge that monks are lazy?") == "rohini"
    assert replier("What was Sāriputta's response?") == "sariputta"
    # no one named before the verb, or no answer asked for
    assert replier("How did he reply?") is None
    assert replier("What is the answer to suffering?") is None
    assert replier("Who taught Rohinī?") is None
