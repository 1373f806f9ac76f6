"""Questions about the library itself, on the canon corpus in miniature plus two Vinaya rules laid down the way
the Analyses lay them down and a second translator of the Dhammapada: parallels from SuttaCentral's table, two
translations side by side, a rule found by its topic with its offence class, and the bad input of each."""

from __future__ import annotations

import pytest

from tools.function_tools import TOOL_NAMES, CanonTools, build_tools
from tools.references import ordinal_reference
from tools.texts.parallels import sc_id, scope_of
from tools.texts.rules import stem
from tools.texts.side_by_side import asks_for_translations, translators_named
from tools.turn import TurnRecorder

from corpus import _dump, write_canon_corpus
from fakes import tiny_library

_VB = "translation/en/brahmali/vinaya/pli-tv-bu-vb"


def _rule(uid: str, chapter: str, title: str, origin: str, ruling: str, pali: str):
    en = {f"{uid}:0.1": "Theravāda Collection on Monastic Law ", f"{uid}:0.2": "The Great Analysis ",
          f"{uid}:0.3": f"{chapter} ", f"{uid}:0.4": f"{title} ",
          f"{uid}:1.0": "Origin story ", f"{uid}:1.1": f"{origin} ",
          f"{uid}:1.2.0": "Final ruling ", f"{uid}:1.2.1": f"‘{ruling}’” ",
          f"{uid}:2.1.0": "Definitions ", f"{uid}:2.1.1": "A monk: one who is fully ordained. "}
    pli = {f"{uid}:1.1": "Tena samayena buddho bhagavā. ", f"{uid}:1.2.1": f"{pali} "}
    return en, pli


RULES = {
    "pli-tv-bu-vb-pc/pli-tv-bu-vb-pc10": _rule(
        "pli-tv-bu-vb-pc10", "The chapter on offenses entailing confession", "The training rule on digging the earth",
        "The monks at Āḷavī dug the earth and had it dug, and people complained.",
        "If a monk digs the earth or has it dug, he commits an offense entailing confession.",
        "Yo pana bhikkhu pathaviṁ khaṇeyya vā khaṇāpeyya vā, pācittiyan”ti."),
    "pli-tv-bu-vb-np/pli-tv-bu-vb-np18": _rule(
        "pli-tv-bu-vb-np18", "The chapter on relinquishment", "The training rule on money",
        "Venerable Upananda took the money that was set aside for him.",
        "If a monk takes, has someone else take, or consents to gold or silver being deposited for him, he commits "
        "an offense entailing relinquishment and confession.",
        "Yo pana bhikkhu jātarūparajataṁ uggaṇheyya vā, nissaggiyaṁ pācittiyan”ti."),
}
DHP_SUDDHASO = {"dhp1:0.1": "Dhammapada ", "dhp1:1": "Phenomena are preceded by the mind, ",
                "dhp1:2": "led by the mind, made by the mind. ", "dhp1:3": "Suffering follows. ",
                "dhp2:1": "Phenomena are preceded by the mind, ", "dhp2:2": "if one acts with a pure mind, ",
                "dhp2:3": "happiness follows. "}


def write_library_corpus(root):
    tree = write_canon_corpus(root)
    for rel, (en, pli) in RULES.items():
        _dump(tree / _VB / f"{rel}_translation-en-brahmali.json", en)
        _dump(tree / f"root/pli/ms/vinaya/pli-tv-bu-vb/{rel}_root-pli-ms.json", pli)
    _dump(tree / "translation/en/suddhaso/sutta/kn/dhp/dhp1-4_translation-en-suddhaso.json", DHP_SUDDHASO)
    return tree


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    base = tmp_path_factory.mktemp("library-tools")
    tree = write_library_corpus(base / "corpus")
    return tiny_library(base, tree)


def _canon(lib) -> CanonTools:
    return CanonTools(lib, TurnRecorder())


# ---- parallels --------------------------------------------------------------------------------------------------
def test_parallels_are_listed_by_suttacentral_id_with_extent_holding_and_link(lib):
    result = _canon(lib).find_parallels("MN 10")
    assert result.error is None
    table = result.table.text
    assert "MA 98: a full parallel, not in this library — https://suttacentral.net/ma98" in table
    assert "EA 12.1: a full parallel, not in this library" in table
    assert "DN 22: a full parallel, not in this library" in table  # the table's, though this library lacks it
    assert "MN 119: a partial parallel" in table and "SN 47.1 (its §2): a partial parallel" in table
    assert "None of them is in this library" in table


def test_parallels_the_library_holds_are_quoted_side_by_side(lib):
    result = _canon(lib).find_parallels("SN 56.11")
    assert "Kd 1 “Going Forth”: a partial parallel, in this library — https://suttacentral.net/pli-tv-kd1" in \
        result.table.text
    assert [w.sutta_id for _, w in result.evidence] == ["SN 56.11", "Kd 1"]
    assert all(f"[{w.ref}]" in result.table.text for _, w in result.evidence)


def test_parallels_narrowed_to_a_tradition_or_a_collection(lib):
    chinese = _canon(lib).find_parallels("MN 10", "Chinese Agamas").table.text
    assert "MA 98" in chinese and "EA 12.1" in chinese and "DN 22 " not in chinese.split("\n")[1]
    assert "in the Chinese Āgamas" in chinese
    one = _canon(lib).find_parallels("MN 10", "the Madhyama Agama").table.text
    assert "MA 98" in one and "EA 12.1" not in one
    # nothing of that tradition: said, and the whole list given instead of nothing
    tibetan = _canon(lib).find_parallels("MN 10", "Tibetan").table.text
    assert tibetan.startswith("SuttaCentral's table of parallels lists no parallel of MN 10") and "MA 98" in tibetan


def test_parallels_of_an_unknown_text_or_one_without_any_are_a_plain_sentence(lib):
    unknown = _canon(lib).find_parallels("MN 175")
    assert unknown.error and "There is no MN 175" in unknown.error and not unknown.table
    none = _canon(lib).find_parallels("MN 21").table.text
    assert none == "SuttaCentral's table of parallels lists no parallel of MN 21 (The Simile of the Saw)." or \
        none.startswith("SuttaCentral's table of parallels lists no parallel of MN 21")


@pytest.mark.parametrize("uid, shown", [("ma106", "MA 106"), ("ea44.6", "EA 44.6"), ("t94", "T 94"),
                                        ("sa197", "SA 197"), ("kp9", "Kp 9"), ("pli-tv-bu-vb-pc51", "Bu Pc 51")])
def test_suttacentral_ids_are_written_as_suttacentral_writes_them(uid, shown):
    assert sc_id(uid) == shown


def test_the_scope_of_a_parallels_question():
    assert scope_of("What are the parallels of MN 1 in the Chinese Āgamas?").language == "Chinese"
    assert scope_of("Does it have a parallel in the Madhyama Āgama?").prefixes == ("ma",)
    assert scope_of("Which Saṁyukta Āgama discourse parallels it?").prefixes == ("sa",)
    assert scope_of("Where else in the Pali canon is it found?").language == "Pali"
    assert scope_of("What are its parallels?") is None


# ---- translations side by side -------------------------------------------------------------------------------
def test_two_translations_side_by_side_segment_by_segment_with_the_pali(lib):
    result = _canon(lib).compare_translations("Thig 1.1", "sujato, soma")
    table = result.table.text
    assert "Bhikkhu Sujato and Bhikkhu Soma" in table
    first = table.index("Thig 1.1:1.1")
    block = table[first:table.index("Thig 1.1:1.2")]
    assert "Pali: Sukhaṁ supāhi therike," in block and "Sleep softly, little nun" in block \
        and "Sleep with ease, Elder" in block
    # a rendering that opens a speech keeps its mark, nested in the one it is shown in
    assert "“‘Sleep with ease, Elder," in block and "““" not in table
    assert [w.sutta_id for _, w in result.evidence] == ["Thig 1.1"]


def test_one_verse_of_a_chapter_file_is_compared_alone(lib):
    table = _canon(lib).compare_translations("Dhp 1", "suddhaso").table.text
    assert "Suddhaso" in table and "Phenomena are preceded by the mind" in table
    assert "Intention shapes experiences" in table  # the default translation beside it
    assert "Dhp 2:" not in table and "no translation" not in table


def test_a_translator_the_library_does_not_hold_is_said_so(lib):
    table = _canon(lib).compare_translations("Thig 1.1", "Bodhi").table.text
    assert table.startswith("The library holds no translation of Thig 1.1 by Bodhi; it holds Thig 1.1 translated "
                            "by Bhikkhu Sujato and Bhikkhu Soma.")
    held_elsewhere = _canon(lib).compare_translations("MN 21", "soma").table.text
    assert held_elsewhere.startswith("The library holds no translation of MN 21 by Bhikkhu Soma")
    assert "The library holds one translation of MN 21" in held_elsewhere


def test_the_translations_of_a_whole_book_are_counted_and_one_text_shown_side_by_side(lib):
    table = _canon(lib).compare_translations("Thig").table.text
    assert table.startswith("The library holds the Verses of the Senior Nuns (Therīgāthā) in two translations: "
                            "Bhikkhu Sujato's, of all its")
    assert "Bhikkhu Soma's" in table and "Sleep with ease, Elder" in table  # its first such text, side by side
    only = _canon(lib).compare_translations("MN").table.text
    assert only.startswith("The library holds the Middle Discourses (Majjhima Nikāya) in one translation only, "
                           "Bhikkhu Sujato's")


def test_a_question_about_a_books_translations_asks_the_table_of_that_book(lib):
    from chat.pipeline.conversation import make_plan
    from chat.pipeline.plan import PreviousTurn, TableStep
    from tools.references import book_named
    from tools.search.query import analyse_query

    assert book_named("Are there other translations of the Therigatha?").display == "Thig"
    assert book_named("Is it in the Verses of the Senior Nuns?").display == "Thig"
    assert book_named("What does the Buddha say about anger?") is None
    previous = PreviousTurn("What does MN 10 say?", "… [MN 10:4.1].", cited_refs=["MN 10:4.1"],
                            cited_suttas=["MN 10"], subject_suttas=["MN 10"])
    step = make_plan(analyse_query(lib, "Are there other translations of the Therigatha?"), previous=previous).steps[0]
    assert isinstance(step, TableStep) and step.kwargs == {"sutta_id": "Thig"}


def test_translation_questions_and_the_translators_they_name():
    assert asks_for_translations("How does Bhikkhu Suddhaso translate the first verse of the Dhammapada?")
    assert asks_for_translations("Compare Sujato's and Soma's translations of Thig 1.1.")
    assert not asks_for_translations("What does MN 1 say about the root of all things?")
    assert translators_named("How does Thanissaro translate Dhp 1?") == ([], ["Thanissaro"])
    assert translators_named("Compare Sujato's and Soma's translations") == (["sujato", "soma"], [])
    assert ordinal_reference("the first verse of the Dhammapada") == "Dhp 1"
    assert ordinal_reference("the tenth discourse of the Majjhima Nikāya") == "MN 10"
    assert ordinal_reference("the first verse of the Therīgāthā") == "Thig 1.1"
    assert ordinal_reference("the second discourse of the Saṁyutta") is None  # numbered by chapter: no guess


# ---- Vinaya rules ---------------------------------------------------------------------------------------------
def test_the_rule_index_is_read_from_the_analyses_structure(lib):
    rules = {r.sutta_id: r for r in lib.rules.rules}
    assert set(rules) == {"Bu Pc 10", "Bu Np 18"}  # Bu Pj 2 of the corpus lays down no "Final ruling"
    assert rules["Bu Pc 10"].offence == "confession" and rules["Bu Pc 10"].topic == "digging the earth"
    assert rules["Bu Np 18"].offence == "relinquishment and confession"
    assert rules["Bu Np 18"].offence_pali == "Bhikkhu Nissaggiya Pācittiya"


@pytest.mark.parametrize("question, rule", [
    ("May a monk dig the ground?", "Bu Pc 10"),
    ("Is a monk allowed to accept gold and silver?", "Bu Np 18"),
    ("Can monks handle money?", "Bu Np 18"),
])
def test_a_rule_is_found_by_its_topic_and_quoted_with_its_class(lib, question, rule):
    result = _canon(lib).find_rule(question)
    assert result.table.text.startswith(f"{rule}, “The training rule on")
    assert "offense entailing" in result.table.text and "It reads: “If a monk" in result.table.text
    assert "In Pali:" in result.table.text
    assert [w.sutta_id for _, w in result.evidence] == [rule]
    assert f"[{result.evidence[0][1].ref}]" in result.table.text


def test_a_topic_no_rule_speaks_of_is_a_clear_error_not_an_invented_rule(lib):
    result = _canon(lib).find_rule("May a monk ride an elephant?")
    assert result.error and "No rule of the Vinaya" in result.error and not result.table


def test_stems_meet_between_questions_and_rule_titles():
    assert stem("digging") == stem("digs") == stem("dig")
    assert stem("lying") == stem("lies") == stem("lie")


# ---- the agent sees the tools -----------------------------------------------------------------------------
def test_the_agent_lists_the_table_tools(lib):
    names = [t.metadata.name for t in build_tools(lib, TurnRecorder())]
    assert names == list(TOOL_NAMES)
    assert {"find_parallels", "compare_translations", "find_rule"} <= set(names)
    tool = next(t for t in build_tools(lib, TurnRecorder()) if t.metadata.name == "find_rule")
    assert "Bu Pc 10" in tool.fn(query="digging the earth")  # a synonym of its argument's name still works


# ---- the chat: planned, answered from the table, no model needed ------------------------------------------------
def _ask(lib, question: str, tmp_path):
    from chat.pipeline.scholar import Scholar
    from chat.providers.scripted import ScriptedLLM

    llm = ScriptedLLM([])  # any model call would fail the turn: a table answer needs none
    settings = lib.settings.model_copy(update={"memory_db": tmp_path / "memory.sqlite"})
    return Scholar(settings, lib, llm).ask(question), llm


@pytest.mark.parametrize("question, tool, says, cites", [
    ("What are the parallels of MN 10 in the Chinese Āgamas?", "find_parallels", ["MA 98", "EA 12.1"], "MN 10"),
    ("Is there a counterpart of SN 56.11 elsewhere in the canon?", "find_parallels", ["Kd 1"], "Kd 1"),
    ("Compare Sujato's and Soma's translations of Thig 1.1.", "compare_translations",
     ["Sleep softly, little nun", "Sleep with ease, Elder", "Bhikkhu Soma"], "Thig 1.1"),
    ("How does Bhikkhu Suddhaso translate the first verse of the Dhammapada?", "compare_translations",
     ["preceded by the mind", "Suddhaso"], "Dhp 1"),
    ("How does Thanissaro translate Thig 1.1?", "compare_translations",
     ["The library holds no translation of Thig 1.1 by Thanissaro"], "Thig 1.1"),
    ("May a monk dig the ground?", "find_rule", ["Bu Pc 10", "digs the earth", "confession"], "Bu Pc 10"),
    ("Is a monk allowed to accept gold and silver?", "find_rule",
     ["Bu Np 18", "relinquishment and confession", "gold or silver"], "Bu Np 18"),
])
def test_questions_about_the_library_are_answered_from_its_tables(lib, tmp_path, question, tool, says, cites):
    answer, llm = _ask(lib, question, tmp_path)
    assert answer.status == "answered" and llm.calls == 0
    assert [s.tool for s in answer.trace][:1] == [tool]  # the trace (and so the chat's steps) names the tool
    for fact in says:
        assert fact in answer.answer
    assert cites in {c.sutta_id for c in answer.citations}
    assert all(f"[{c.ref}]" in answer.answer for c in answer.citations)
    assert answer.follow_ups and all(q.endswith("?") for q in answer.follow_ups)
    # typed like every answer: the table's facts in sentences of its own, the texts' words as quotes
    own = " ".join(s.text for s in answer.sentences if s.origin == "model")
    assert own and any(fact in own for fact in says) and {s.origin for s in answer.sentences} <= {"model", "quote"}


def test_a_table_answer_tells_its_statements_from_the_texts_words(lib):
    def typed(result):
        return [(s.origin, s.citations) for s in answer_sentences(result.table)]

    from chat.pipeline.tables import answer_sentences

    rule = _canon(lib).find_rule("May a monk dig the ground?")
    # 'It reads: “…”' states the rule; the Pali set out under it is the text's
    assert typed(rule) == [("model", []), ("model", [rule.evidence[0][1].ref]), ("quote", [])]
    side = _canon(lib).compare_translations("Dhp 1", "suddhaso")
    said = answer_sentences(side.table)
    assert said[0].origin == "model" and "translate it" in said[0].text
    # each segment's heading (`Dhp 1:1`) is no sentence; its Pali and renderings are the texts' words
    headings = [row for row in side.table.text.splitlines() if row.startswith("Dhp 1:")]
    assert headings and len(said) == 1 + 3 * len(headings)  # the Pali and two renderings of each
    assert [s.origin for s in said[1:]] == ["quote"] * (len(said) - 1)
    assert not any(s.text.startswith("Dhp 1:") for s in said)
    assert said[-1].citations == [side.evidence[0][1].ref]
    parallels = _canon(lib).find_parallels("MN 10")
    opens = answer_sentences(parallels.table)[-1]  # 'MN 10 opens: “So I have heard. …”' says what it quotes
    assert opens.text.startswith("MN 10 opens: “") and (opens.origin, opens.citations) == (
        "model", [parallels.evidence[0][1].ref])


def test_a_table_text_is_rendered_once_and_typed_as_it_was_written():
    from tools.texts.table_text import TableText, heading, introducing, item, line, quoted, said

    table = TableText((
        line(said("Dhp 1 as Suddhaso translates it:")),
        heading("Dhp 1:1"),
        item(quoted("Pali: Manopubbaṅgamā dhammā. Manoseṭṭhā manomayā.")),
        item(quoted("Bhikkhu Sujato: “Here they’re tormented,\nhereafter they’re tormented,”")),
        line(said("Bu Pc 10 is the rule."), introducing("It reads: “If a monk digs. He confesses …", ("Bu Pc 10:1",)),
             paragraph=True),
    )).cited("Dhp 1:1")
    assert table.text == (
        "Dhp 1 as Suddhaso translates it:\n\nDhp 1:1\n- Pali: Manopubbaṅgamā dhammā. Manoseṭṭhā manomayā.\n"
        "- Bhikkhu Sujato: “Here they’re tormented,\nhereafter they’re tormented,”\n\n"
        "Bu Pc 10 is the rule. It reads: “If a monk digs. He confesses … [Bu Pc 10:1; Dhp 1:1]")
    # a Pali line or a verse of several sentences or lines is the text's words throughout, past its first
    assert [(s.text, s.origin, s.refs) for s in table.sentences] == [
        ("Dhp 1 as Suddhaso translates it:", "model", ()),
        ("Pali: Manopubbaṅgamā dhammā.", "quote", ()),
        ("Manoseṭṭhā manomayā.", "quote", ()),
        ("Bhikkhu Sujato: “Here they’re tormented,", "quote", ()),
        ("hereafter they’re tormented,”", "quote", ()),
        ("Bu Pc 10 is the rule.", "model", ()),
        ("It reads: “If a monk digs.", "model", ()),
        ("He confesses …", "quote", ("Bu Pc 10:1", "Dhp 1:1")),  # a quotation cut off runs on to its end
    ]


def test_a_parallels_question_about_a_text_that_does_not_exist_invents_nothing(lib, tmp_path):
    answer, llm = _ask(lib, "What are the parallels of MN 175?", tmp_path)
    assert answer.status == "abstained" and llm.calls == 0
    assert "There is no MN 175" in answer.answer and "MA " not in answer.answer


def test_the_plan_puts_the_table_first_and_keeps_the_usual_retrieval_after_it(lib):
    from chat.pipeline.conversation import make_plan
    from chat.pipeline.plan import TableStep
    from tools.search.query import analyse_query

    plan = make_plan(analyse_query(lib, "Does MN 10 have a parallel in the Madhyama Āgama?"))
    assert isinstance(plan.steps[0], TableStep) and plan.steps[0].kwargs == {
        "sutta_id": "MN 10", "within": "the Madhyama Āgama (MA)"}
    assert len(plan.steps) == 2  # the lookup of MN 10 follows, for when the table cannot answer
    assert not isinstance(make_plan(analyse_query(lib, "What does MN 10 say about feelings?")).steps[0], TableStep)


# ---- claims about the tables are checked against the tables -------------------------------------------------
@pytest.mark.parametrize("sentence, about, holds", [
    ("MN 10 has parallels in MA 98 and EA 12.1.", (), True),
    ("The Chinese parallel of this text is MA 98.", ("MN 10",), True),
    ("MN 10 has a parallel in MA 106.", (), False),  # the table lists no MA 106 for MN 10
    ("Bu Pc 10 is an offense entailing confession.", (), True),
    ("Bu Pc 10 is an offense entailing expulsion.", (), False),
    ("The monks dug the earth at Āḷavī [Bu Pc 10:1.1].", (), None),  # no table claim: the usual checks apply
])
def test_a_claim_citing_the_tables_is_checked_against_them(lib, sentence, about, holds):
    from tools.verification.table_claims import check_table_claim

    assert check_table_claim(lib, sentence, about) is holds


def test_the_verifier_judges_table_sentences_by_the_tables_in_one_place(lib):
    from tools.language.sentences import Sentence
    from tools.references import find_citations
    from tools.verification.verifier import Finding

    report = lib.verifier().verify([
        Sentence("MN 10 has parallels in MA 98 and EA 12.1.", find_citations("[MN 10]")),
        Sentence("MN 10 has a parallel in MA 106.", find_citations("[MN 10]")),
        Sentence("Bu Pc 10 is an offense entailing expulsion.", find_citations("[Bu Pc 10]")),
        Sentence("Bu Pc 10 is an offense entailing confession.", find_citations("[Bu Pc 10]")),
    ], None, about=["MN 10"])
    assert [v.verdict for v in report.verdicts] == ["supported", "unsupported", "unsupported", "supported"]
    assert report.verdicts[0].reason == "in SuttaCentral's table of parallels"
    assert report.verdicts[1].finding is Finding.TABLE_DIFFERS and "MA 106" in report.verdicts[1].reason
    assert "confession" in report.verdicts[2].reason  # the rule's own class, from the rule index


def test_no_second_pass_judges_table_claims():
    import tools.verification.table_claims as table_claims

    assert not hasattr(table_claims, "with_table_facts")
    assert not hasattr(__import__("tools.verification.verifier", fromlist=["x"]).ClaimVerifier, "_parallels_claim")


def test_a_follow_up_about_parallels_asks_the_table_about_the_text_under_discussion(lib):
    from chat.pipeline.conversation import resolve
    from chat.pipeline.plan import PreviousTurn, TableStep
    from tools.search.query import analyse_query

    previous = PreviousTurn("What does MN 10 say about feelings?", "Feelings are observed [MN 10:4.1].",
                            cited_refs=["MN 10:4.1"], cited_suttas=["MN 10"], subject_suttas=["MN 10"])
    # asked with "this sutta", with a pronoun, and with the reader's own turn of phrase, including "a parallel": each
    # the same question of the table (the pronoun's was read as "the same elsewhere" and only searched)
    for question in ("Does this sutta have parallels in the Chinese Āgamas?", "does it have a parallel in the Āgamas?",
                     "Is there a parallel to it in the Chinese Agamas?"):
        resolution, plan = resolve(lib, analyse_query(lib, question), [previous])
        step = plan.steps[0]
        assert isinstance(step, TableStep) and step.kwargs["sutta_id"] == "MN 10" and step.tool == "find_parallels", \
            (question, resolution)


def test_a_texts_own_group_in_the_table_decides_which_parallels_are_full(tmp_path):
    from indexing.sources.parallels import parallels_rows, read_parallels
    from indexing.stores.docstore import DocStore

    # as SuttaCentral lists MN 1: from MA 106's side (MN 1 partial to it) and from its own (EA 44.6 full)
    table = tmp_path / "parallels.json"
    table.write_text('[{"parallels": ["ma106", "~mn1", "~ea44.6"]}, {"parallels": ["mn1", "ea44.6", "~ma106"]}]',
                     encoding="utf-8")
    store = DocStore(tmp_path / "docstore.sqlite")
    store.replace_parallels(parallels_rows(read_parallels(table)))
    got = {(p.uid, p.partial) for p in store.parallels("mn1")}
    assert got == {("ea44.6", False), ("ma106", True)}


def test_a_text_known_only_by_its_suttacentral_id_and_one_the_table_lacks(lib, tmp_path):
    known = _canon(lib).find_parallels("MA 98").table.text
    assert "MN 10 “Mindfulness Meditation”: a full parallel, in this library" in known
    assert "MA 98 itself is not in this library" in known
    answer, llm = _ask(lib, "What are the parallels of MA 999?", tmp_path)
    assert llm.calls == 0 and answer.status == "abstained" and not answer.citations
    assert answer.answer.startswith("SuttaCentral's table of parallels lists no text MA 999")


@pytest.mark.parametrize("question", ["Which Āgama discourse corresponds to MN 10?",
                                      "Is there an equivalent of MN 10 in Chinese?"])
def test_other_words_for_parallels_plan_the_table(lib, question):
    from chat.pipeline.conversation import make_plan
    from tools.search.query import analyse_query

    assert make_plan(analyse_query(lib, question)).steps[0].tool == "find_parallels"


def test_a_translators_version_is_a_translation_question():
    assert asks_for_translations("What is Soma's version of Thig 1.1?")
    assert not asks_for_translations("What is the version of events in Thig 1.1?")


def test_asked_for_another_translation_the_question_is_a_translation_question(lib):
    from chat.pipeline.conversation import make_plan
    from chat.pipeline.plan import TableStep
    from tools.search.query import analyse_query

    for question in ("Is there another translation of Thig 1.1?", "Are there other translations of Thig 1.1?",
                     "Is there a second translation of Thig 1.1?"):
        assert asks_for_translations(question), question
        step = make_plan(analyse_query(lib, question)).steps[0]
        assert isinstance(step, TableStep) and step.tool == "compare_translations", question
    assert not asks_for_translations("What other teachings does Thig 1.1 give?")


def test_a_title_two_books_share_is_read_as_the_one_in_the_book_the_question_names():
    from chat.pipeline.tables import _pinned_text

    docs = ["kp9", "snp1.8"]
    assert _pinned_text(docs, "Where else is the Discourse on Love found, besides the Sutta Nipāta?") == "Snp 1.8"
    assert _pinned_text(docs, "Where else is the Discourse on Love found?") == "Kp 9"


def test_a_rule_is_found_by_the_pali_word_a_reader_uses(lib):
    assert lib.rules.find("Is pathaviṁ digging allowed for monks?")[0].rule.sutta_id == "Bu Pc 10"
    assert lib.rules.find("the rule on jātarūparajataṁ")[0].rule.sutta_id == "Bu Np 18"


def test_the_same_teaching_in_a_collection_is_searched_for_not_read_from_the_table(lib):
    from chat.pipeline.conversation import make_plan
    from chat.pipeline.plan import TableStep
    from tools.search.query import analyse_query

    plan = make_plan(analyse_query(lib, "Is the teaching of MN 10 also found in the Long Discourses?"))
    assert not any(isinstance(step, TableStep) for step in plan.steps)


@pytest.mark.parametrize("question, asks", [
    ("May a monk dig the ground?", True),
    ("What is the monastic rule on telling lies?", True),
    ("Why did the Buddha forbid monks to dig the soil?", False),  # the origin story answers it
    ("Which Vinaya rule began with Dhaniya taking the king's timber?", False),
    ("Who saw the monks playing in the water, which led to the rule against it?", False),
    ("What does the Buddha say about anger?", False),
])
def test_a_question_about_what_a_rule_says_not_how_it_came_about(question, asks):
    from tools.texts.rules import asks_for_rule

    assert asks_for_rule(question) is asks
