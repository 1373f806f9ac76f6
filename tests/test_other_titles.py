"""The BuddhaDust index reader behind the Bodhi, Walshe, Ñāṇamoli, Norman and PTS rows of
indexing/data/other_titles.csv (bench/other_titles.py)."""

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("other_titles", Path(__file__).parents[1] / "bench" / "other_titles.py")
other_titles = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(other_titles)

MN_PAGE = """<h4 class="ctr"><a id="vg1">1.</a> <i>Mūla-Pariyāya Vagga</i></h4>
<h4><a id="p1">1.</a> <a href="../pali/mn/mn.001.pali.bd.htm">Mūla-Pariyāya Suttaṃ,</a> I.1</h4>
<p>The first sutta.</p>
<p class="in1">SBB: <a href="../chlm/mn/mn.001.chlm.sbb.htm"><i>Mūla-Pariyāya-Suttaṃ,</i> How States Of Consciousness
Originate,</a> Chalmers trans, Vol. I, pg 1<br />
PTS: <a href="../pts/mn/mn.001.horn.pts.htm">Discourse on the Synopsis of Fundamentals,</a> Horner, trans., I.3<br />
WP: <a href="../wp/mn/mn.001.ntbb.wp.htm">The Root of All Things,</a> Ñanamoli Thera, trans., <i>Bhk.</i> Bodhi<br />
BD: <a href="../bd/mn/mn.001.olds.bd.htm">The Root of All Evil,</a> Olds, trans.</p>
<p class="in1">BD: <a href="x.htm">Resources</a><br />
PTS: <a href="../pts/an/03_threes/an03.123.wood.pts.htm">The Gotamaka</a> Woodward, trans.</p>
<h4><a id="p11">11.</a> <a href="../pali/mn/mn.011.pali.bd.htm"><i>Cūḷa-Sīhanāda Suttaṃ,</i></a> I.63</h4>
<p class="in1">WP, ATI: The Shorter Discourse on the Lion's Roar, Ñanamoli Thera trans., Bhk. Bodhi, ed., 159</p>
<h4><a id="p50">50.</a> <a href="../pali/mn/mn.050.pali.bd.htm">Māra-Tajjanīya Suttaṃ,</a> I.332</h4>
<p class="in1">WP: The Rebuke to Mara, Ñanamoli Thera, trans., <i>Bhk.</i> Bodhi, ed., 431</p>"""


def test_majjhima_entries_take_each_books_first_line_and_skip_another_texts_line():
    rows = other_titles.entries(
        MN_PAGE.replace("Consciousness\nOriginate", "Consciousness Originate"),
        "backmatter/indexes/sutta/mn/idx_majjhima_nikaya_1.htm",
    )
    assert [(e.sutta_id, e.pali) for e in rows] == [
        ("MN 1", "Mūla-Pariyāya Suttaṃ"),
        ("MN 11", "Cūḷa-Sīhanāda Suttaṃ"),
        ("MN 50", "Māra-Tajjanīya Suttaṃ"),
    ]
    # Olds' own title is not read, nor the PTS "see also" line linking to AN 3.123
    assert rows[0].titles == [
        ("SBB", "How States Of Consciousness Originate", ""),
        ("PTS", "Discourse on the Synopsis of Fundamentals", ""),
        ("WP", "The Root of All Things", ""),
    ]
    assert rows[1].titles == [("WP", "The Shorter Discourse on the Lion's Roar", "")]
    assert rows[2].titles == [("WP", "The Rebuke to Mara", "")]  # no link: the title ends at the first comma


AN_PAGE = """<h4>I. <i>Bhanṭagāma Vagga,</i> I.1</h4>
<p class="in1">PTS: At Bhandagama, I.1<br />
WP: Bhaṇṭagāma, 387</p>
<p class="in1"><a id="p1" href="../pali/an/04_fours/an04.001.pali.bd.htm"><b>#1: <i>Anubuddha Suttaṃ,</i></b></a> 1</p>
<p class="f4 in2">PTS: <a href="../pts/an/04_fours/an04.001.wood.pts.htm">Understanding,</a> 1<br />
WP: 1. <a href="../wp/an/04_fours/an04.001.bodh.wp.htm">Understood,</a> 387</p>
<h4>II. <i>Cara Vagga,</i> I.11</h4>
<p class="in1">PTS: Walking, I.11<br />
WP: Walking, 393</p>
<p class="in1"><b>&#35;28-30 <a id="p28" href="an07.028.htm#p28">28: <i>Upāsaka Vipatti Suttaṃ,</i></a> IV.26<br />
<a id="p29" href="an07.028.htm#p29">29: <i>Upāsaka Parābhava Suttaṃ,</i></a> IV.26</b></p>
<p class="in2">PTS 28: <a href="x.htm#p28">Unprofitable,</a> IV.16<br />
WP: 30. Failure, 1018<br />
WP: 31. Ruin, 1018</p>
<p class="in1"><a id="p117" href="y.htm"><b>#117-132: <i>Kāyānupassī Suttaṃ,</i></b></a> 1</p>
<p class="in2">PTS: Contemplation, 1</p>
<p class="in1"><b><a id="p11">11.</a> <a href="z.htm"><i>Cakkhu Suttaṃ,</i></a> II.244</b></p>
<p class="in2">WP: 11-20: The Eye, 700<br />
PTS: (omitted in the original) The Eye, 2</p>"""


def test_anguttara_entries_keep_bodhis_numbers_and_skip_chapter_headings_and_runs():
    rows = other_titles.entries(AN_PAGE, "backmatter/indexes/sutta/an/idx_04_catukkanipata.htm")
    by_id = {e.sutta_id: e for e in rows}
    # the chapter's own titles ("Walking") are not the first text's
    assert by_id["AN 4.1"].titles == [("PTS", "Understanding", ""), ("WP", "Understood", "1")]
    # two texts under one heading: each numbered WP line is tried at its own number only ("#")
    assert by_id["AN 4.28"].pali == "Upāsaka Vipatti Suttaṃ"
    assert by_id["AN 4.29"].titles == [("WP", "Failure", "30"), ("WP#", "Ruin", "31")]
    assert "AN 4.117" not in by_id  # a heading over a run of texts
    # Bodhi's "11-20: The Eye" titles a run of texts; a PTS note before a title is dropped
    assert by_id["AN 4.11"].titles == [("PTS", "The Eye", "")]


SNP_PAGE = """<p class="fp4 in1">(<a id="snp1">1.</a>) <a id="I.1" href="kd.snp.pali.bd.htm#I.1">1. Uraga Suttaɱ,</a>
p 1, vs 1</p>
<p class="f4 in2">SBE: <a href="x.htm#I.1">Uragasutta</a> p 1<br />
PTS: I.1.: The Snake, p 1<br />
PTS/WP: The Chapter on the Serpent, p 157</p>
<p class="fp4 in1">(<a id="snp2">2.</a>) <a id="I.2" href="kd.snp.pali.bd.htm#I.2">2. Dhaniya Suttaɱ,</a> p 3</p>
<p class="f4 in2">PTS: I.2.: Dhaniya, p 3<br />
PTS/WP: Dhaniya (Dhaniya Sutta), p 159</p>"""


def test_sutta_nipata_entries_take_normans_and_bodhis_titles_but_no_chapter_title():
    page = SNP_PAGE.replace(",</a>\np 1", ",</a> p 1")
    rows = other_titles.entries(page, "backmatter/indexes/sutta/kd/snp/idx_snp.htm")
    assert [(e.sutta_id, e.pali, e.titles) for e in rows] == [
        ("Snp 1.1", "Uraga Suttaṃ", [("PTS", "The Snake", "")]),  # Bodhi's line gives his chapter's title
        ("Snp 1.2", "Dhaniya Suttaṃ", [("PTS", "Dhaniya", ""), ("PTS/WP", "Dhaniya", "")]),
    ]


def test_subtitles_alternatives_and_several_pali_names():
    title, number = other_titles._title(
        '<a href="dn.01.wlsh.wp.htm">The Supreme Net</a>: What the Teaching is Not, Walshe, trans., 67'
    )
    assert (title, number) == ("The Supreme Net: What the Teaching is Not", "")
    assert other_titles._aliases(title) == [title, "The Supreme Net"]
    assert other_titles._aliases("Vepacitti (or Patience)") == ["Vepacitti (or Patience)", "Vepacitti", "Patience"]
    assert other_titles._aliases("The Millionaire, or the Shabby Cloak") == [
        "The Millionaire, or the Shabby Cloak",
        "The Millionaire",
        "The Shabby Cloak",
    ]
    assert other_titles._title("To Jīvaka 474") == ("To Jīvaka", "")  # a page number without its comma
    assert other_titles._title("[Same as BPS version]")[0] == ""
    assert other_titles.names("Paṭhama Dussilya or Anāthapiṇḍika Suttaṃ") == [
        "Paṭhama Dussilya or Anāthapiṇḍika Suttaṃ",
        "Paṭhama Dussilya",
        "Paṭhama Anāthapiṇḍika Suttaṃ",
    ]
    assert other_titles.names("Pañcagati: Chaṭṭha Manussa-cuti Suttaṃ") == ["Chaṭṭha Manussa-cuti Suttaṃ"]


def test_pages_are_read_by_book_and_chapter():
    assert other_titles._page_book("backmatter/indexes/sutta/sn/02_nv/idx_12_nidanasamyutta.htm") == ("SN", 12)
    assert other_titles._page_book("backmatter/indexes/sutta/an/idx_04_catukkanipata.htm") == ("AN", 4)
    assert other_titles._page_book("backmatter/indexes/sutta/mn/idx_majjhima_nikaya_2.htm") == ("MN", 0)
    assert other_titles._page_book("backmatter/indexes/sutta/kd/snp/idx_snp.htm") == ("Snp", 0)
    assert other_titles._page_book("backmatter/indexes/sutta/an/idx_key.htm") is None
