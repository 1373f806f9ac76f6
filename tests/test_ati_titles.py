"""The Access to Insight index reader behind indexing/data/other_titles.csv (bench/ati_titles.py)."""

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("ati_titles", Path(__file__).parents[1] / "bench" / "ati_titles.py")
ati_titles = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(ati_titles)

PAGE = """<ul>
<li><span class='sutta_title'>SN 1.1: Ogha-tarana Sutta &mdash; Crossing over the Flood</span> (no translation)</li>
<li><a id='mn.020.soma' name='mn.020.soma'></a><span class='sutta_title'><a title='There are 2'>MN 20:
Vitakkasanthana Sutta &mdash; The Removal of Distracting Thoughts/The Relaxation of Thoughts</a></span>
<br /><span class='sutta_trans'>[<a href='./mn.020.soma.html' title='Translated by Soma Thera'>Soma</a> |
<a href='./mn.020.than.html' title='Translated by Thanissaro Bhikkhu'>Thanissaro</a>].</span></li>
<li><span class='sutta_title'><a href='sn01/sn01.003.wlsh.html'>SN 1.9: Maanakaamo Sutta &mdash; Vain Conceits</a>
</span><span class='sutta_trans'>[<a href='x' title='Translated by Maurice O&#039;Connell Walshe'>Walshe</a>].</span>
<li><span class='sutta_title'>Introduction to the Middle Collection</span></li>
</ul>"""


def test_entries_split_titles_and_translators_and_unspell_velthuis():
    # the first title lists no translator: it must not take the next entry's
    rows = ati_titles.entries(PAGE.replace("MN 20:\n", "MN 20: "))
    assert rows[0] == ("MN 20", "Vitakkasanthana Sutta", ["The Removal of Distracting Thoughts",
                                                         "The Relaxation of Thoughts"],
                       ["Soma Thera", "Thanissaro Bhikkhu"])
    assert rows[1][:3] == ("SN 1.9", "Manakamo Sutta", ["Vain Conceits"])
    assert rows[1][3] == ["Maurice O'Connell Walshe"]
    assert len(rows) == 2  # a heading without an ID is no entry


KN_PAGE = """<li><span class='sutta_title'><a href='./snp.1.08.than.html'>Sn 1.8: Karaniya Metta Sutta &mdash;
Good Will</a></span><span class='sutta_trans'>[<a href='x' title='Translated by Thanissaro Bhikkhu'>Thanissaro</a>].
</span></li>
<li><span class='sutta_title'><a href='./ud.2.07.than.html'>Ud 2.7: Ekaputta Sutta &mdash; The Only Son</a></span>
<span class='sutta_trans'>[<a href='y' title='Translated by Thanissaro Bhikkhu'>Thanissaro</a>].</span></li>"""


def test_khuddaka_entries_take_suttacentrals_book_abbreviations():
    # Access to Insight writes the Sutta Nipāta "Sn"; SuttaCentral (and our IDs) "Snp"
    rows = ati_titles.entries(KN_PAGE.replace("&mdash;\n", "&mdash; "))
    assert [(r[0], r[2]) for r in rows] == [("Snp 1.8", ["Good Will"]), ("Ud 2.7", ["The Only Son"])]


DHAMMATALKS_PAGE = """<ul>
<li><strong><a href="/AN2_24.html">AN&thinsp;2:24</a>&nbsp; Neyyattha Sutta | A Meaning to be Inferred</strong>
&nbsp;&#151;&nbsp; Two other ways of slandering the Buddha.</li>
<li><strong><a href="../../../suttas/KN/StNp/StNp1_1.html">Sn&thinsp;1:1</a>&nbsp; The Snake</strong></li>
<li><strong><a href="MN4.html">MN&thinsp;4</a>&nbsp; Bhaya-bherava Sutta | Fear &amp; Terror</strong></li>
<li><strong><a href="AN1_50.html">AN&thinsp;1:50</a>&nbsp; Pabhassara Suttas (AN&nbsp;1:50–53) | Luminous</strong></li>
</ul>"""


def test_dhammatalks_index_entries_are_read_and_those_without_a_pali_name_or_for_a_run_of_texts_skipped():
    rows = ati_titles.entries(DHAMMATALKS_PAGE)
    assert rows == [("AN 2.24", "Neyyattha Sutta", ["A Meaning to be Inferred"], ["Ṭhānissaro Bhikkhu"]),
                    ("MN 4", "Bhaya-bherava Sutta", ["Fear & Terror"], ["Ṭhānissaro Bhikkhu"])]


def test_same_name_sets_a_leading_ordinal_aside_but_never_takes_a_disagreeing_one():
    ours = ati_titles._compound("Dutiyamettāsutta")
    assert ati_titles.same_name("Mettā Sutta (2)", ours)
    assert ati_titles.same_name("Metta Sutta", ours, ["Good Will (2)"])  # the index's number in its English title
    assert not ati_titles.same_name("Mettā Sutta (1)", ours)
    assert not ati_titles.same_name("Metta Sutta", ours, ["Good Will (1)"])
    # short names are near by chance: "Dāna" is 80 from "Nidāna", enough for the first check, not for a move
    assert ati_titles.same_name("Dāna Sutta", ati_titles._compound("Nidānasutta"))
    assert not ati_titles.same_name("Dāna Sutta", ati_titles._compound("Nidānasutta"), ratio=ati_titles.MOVED_NAME)


def test_neighbours_stay_in_the_chapter_nearest_first():
    assert ati_titles._neighbours("AN 3.83", 2) == ["AN 3.82", "AN 3.84", "AN 3.81", "AN 3.85"]
    assert ati_titles._neighbours("MN 2", 2) == ["MN 1", "MN 3", "MN 4"]


class FakeTexts(ati_titles.Texts):
    """Our texts' words by ID, without a library."""

    def __init__(self, by_id: dict[str, str]):
        self._words = {k: frozenset(ati_titles.words(v)) for k, v in by_id.items()}

    def words(self, sutta_id):
        return self._words.get(sutta_id)


def _pali(**titles):
    return {k.replace("_", " ", 1).replace("_", "."): ati_titles._compound(v) for k, v in titles.items()}


def test_a_text_numbered_otherwise_is_filed_under_ours_that_bears_its_name_and_title():
    pali = _pali(AN_3_82="Gadrabhasutta", AN_3_83="Khettasutta", AN_3_84="Vajjiputtasutta")
    texts = FakeTexts({"AN 3.82": "like a donkey following a herd of cattle", "AN 3.83": "three fields"})
    assert ati_titles.recover(texts, pali, "AN 3.83", "Gadrabha Sutta", ["The Donkey"]) == "AN 3.82"
    # the title's words in the text at the index's own number: it is not moved, whatever its neighbour is called
    texts = FakeTexts({"AN 3.82": "a donkey", "AN 3.83": "fields and a donkey"})
    assert ati_titles.recover(texts, pali, "AN 3.83", "Gadrabha Sutta", ["The Donkey"]) is None
    # nor where the other text's lines do not hold the title
    texts = FakeTexts({"AN 3.82": "cattle", "AN 3.83": "fields"})
    assert ati_titles.recover(texts, pali, "AN 3.83", "Gadrabha Sutta", ["The Donkey"]) is None


def test_one_of_a_numbered_set_is_kept_only_where_the_index_says_which():
    pali = _pali(SN_35_63="Paṭhamamigajālasutta", SN_35_64="Dutiyamigajālasutta")
    texts = FakeTexts({})
    assert ati_titles.recover(texts, pali, "SN 35.63", "Migajāla Sutta", ["To Migajāla"]) is None
    assert ati_titles.recover(texts, pali, "SN 35.63", "Migajāla Sutta", ["To Migajāla (1)"]) == "SN 35.63"


def test_a_text_without_a_pali_title_keeps_an_english_title_that_singles_it_out():
    pali = {"AN 2.18": "", "AN 2.19": "", "AN 2.20": "", "AN 2.29": ""}
    texts = FakeTexts({"AN 2.18": "bad conduct should not be done", "AN 2.19": "give up the unskillful, develop the "
                       "skillful", "AN 2.20": "the true teaching declines", "AN 2.29": "two places waiting",
                       "AN 2.31": "two things play a part in clear knowing"})
    assert ati_titles.recover(texts, pali, "AN 2.19", "Kusal’akusala Sutta", ["Skillful & Unskillful"]) == "AN 2.19"
    assert ati_titles.recover(texts, pali, "AN 2.29", "Vijjā-bhāgiya Sutta", ["A Share in Clear Knowing"]) is None
    # a title its neighbour's lines hold as well does not single the text out
    texts = FakeTexts({"AN 2.19": "the unskillful and the skillful", "AN 2.20": "skillful and unskillful"})
    assert ati_titles.recover(texts, pali, "AN 2.19", "Kusal’akusala Sutta", ["Skillful & Unskillful"]) is None
