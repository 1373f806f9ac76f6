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
