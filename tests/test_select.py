"""Select, then say: the lines that answer are chosen before the model writes; a premise the lines contradict is
said; follow-up suggestions keep off the question, the answer, the premise and words the library lacks."""

from __future__ import annotations

from types import SimpleNamespace

from chat.pipeline.followups import generate_followups, usable_followups
from chat.pipeline.premise import asserted, check_premise, presupposed, same_premise
from chat.pipeline.select import (
    _list_items,
    _shaped,
    _spread,
    _within_scope,
    parse_picks,
    select_grammar,
    select_lines,
)
from chat.providers.scripted import ScriptedLLM
from tools.search.shapes import parallel_sections, shape_credit, shape_of
from tools.search.windows import EvidenceWindow
from tools.turn import TurnRecorder

from scholar_helpers import scholar_for


def window(doc: str, sid: str, segs: list[str], texts: list[str], score: float) -> EvidenceWindow:
    return EvidenceWindow(doc, sid, "", tuple(segs), tuple(texts), score, segs[0])


SIMILE_LIST = window("mn22", "MN 22", ["mn22:3.18"], [
    "a snake’s head, the Buddha says that sensual pleasures give little gratification and much suffering."], 1.0)
SIMILE = window("mn22", "MN 22", ["mn22:10.10", "mn22:10.12", "mn22:10.17"], [
    "Suppose there was a person in need of a cobra. ", "and grasp it by the coil or the tail. ",
    "In the same way, a futile person memorizes the teaching but does not examine its meaning."], 0.85)
CAPABLE = window("pli-tv-kd20", "Kd 20", ["pli-tv-kd20:1.3.15", "pli-tv-kd20:1.3.16"], [
    "“If women were allowed to go forth, would they be capable of realizing the fruit of stream-entry, the fruit of "
    "once-returning, the fruit of non-returning, and the fruit of perfection?” ", "“Yes, they would.” "], 0.7)
ALLOW = window("pli-tv-kd20", "Kd 20", ["pli-tv-kd20:1.1.4"], [
    "“Sir, please allow women to go forth into homelessness on the spiritual path.”"], 0.9)


GRAMMARS: list[str | None] = []


class GrammarLLM(ScriptedLLM):
    """The scripted LLM as a provider that holds its output to a grammar (as llama.cpp does), recording each."""

    def with_grammar(self, grammar_fn):
        GRAMMARS.append(grammar_fn())
        return self


def scripted(replies: list[str]) -> GrammarLLM:
    GRAMMARS.clear()
    return GrammarLLM(replies)


class FakeCanon:
    """The seam `select_lines` reads through: a library without the texts' sections, and the turn's recorder."""

    def __init__(self, evidence: list[EvidenceWindow]):
        self.recorder = TurnRecorder()
        self.recorder.number(evidence)
        self.library = SimpleNamespace(evidence=SimpleNamespace(sutta=lambda doc_id: None, weights=None),
                                       bridges=None)

    def show(self, windows):
        return self.recorder.number(windows)


# ---- choosing the lines --------------------------------------------------------------------------------------
async def test_a_simile_question_gets_the_lines_that_apply_the_simile_not_a_list_sharing_its_word():
    canon = FakeCanon([SIMILE_LIST, SIMILE])
    selection = await select_lines(None, canon, "What does the snake simile mean?")
    assert selection.chosen[0].seg_ids == SIMILE.seg_ids and selection.how == "scores"
    assert selection.numbers[0] == 2
    assert "[2]" in selection.hint(canon.recorder)


async def test_a_passage_another_text_repeats_is_chosen_once_and_leaves_room_for_the_lines_beside_it():
    verses = "May all beings be happy! Whatever living creatures there are, may all beings be happy!"
    snp = window("snp1.8", "Snp 1.8", ["snp1.8:3.3"], [verses], 1.0)
    kp = window("kp9", "Kp 9", ["kp9:3.3"], [verses], 0.95)
    mother = window("snp1.8", "Snp 1.8", ["snp1.8:7.1"], [
        "Even as a mother would protect with her life her child, so for all creatures unfold a boundless heart."], 0.8)
    canon = FakeCanon([snp, kp, mother])
    chosen = (await select_lines(None, canon, "How should one protect all living beings?")).chosen
    assert [w.ref for w in chosen] == ["Snp 1.8:3.3", "Snp 1.8:7.1"]


async def test_the_model_selects_among_numbered_lines_under_a_grammar_and_its_pick_leads():
    llm = scripted(["1"])
    canon = FakeCanon([SIMILE, SIMILE_LIST])
    selection = await select_lines(llm, canon, "Which sensual pleasures are like a snake's head?")
    assert selection.how == "model" and selection.chosen[0].seg_ids == SIMILE_LIST.seg_ids
    assert GRAMMARS == [select_grammar(2)]
    assert "1. (MN 22)" in llm.prompts[0][-1].content and "2. (MN 22)" in llm.prompts[0][-1].content
    [step] = [e for e in canon.recorder.trace if e.tool == "select_lines"]
    assert "select:" in step.output_summary and step.output["calls"][0]["reply"] == "1"


async def test_none_from_the_model_leaves_the_choice_to_the_scores_and_never_declines():
    canon = FakeCanon([SIMILE_LIST, SIMILE])
    selection = await select_lines(scripted(["none"]), canon, "What does the snake simile mean?")
    assert selection.how == "scores" and selection.chosen and selection.chosen[0].seg_ids == SIMILE.seg_ids


async def test_without_a_grammar_the_model_is_not_asked():
    llm = ScriptedLLM([])  # would raise if called
    selection = await select_lines(llm, FakeCanon([SIMILE_LIST, SIMILE]), "What does the snake simile mean?")
    assert selection.how == "scores" and not llm.prompts


def test_the_selector_grammar_allows_only_the_numbers_shown_or_none():
    grammar = select_grammar(3)
    assert '"none"' in grammar and '"3" | "2" | "1"' in grammar and '"4"' not in grammar
    assert parse_picks("3,1,3,9", 3) == [3, 1]
    assert parse_picks("none", 3) == []


def test_shapes_credit_the_structure_the_question_asks_for():
    assert shape_credit(shape_of("What does the simile of the cobra mean?"), SIMILE.text) == 1.0
    assert shape_credit(shape_of("What does the simile of the cobra mean?"), SIMILE_LIST.text) == 0.0
    rule = shape_of("Which offense is it for a monk to steal?")
    assert shape_credit(rule, "If a monk steals, it is an offense entailing expulsion.") == 1.0
    assert shape_credit(shape_of("Where was the Buddha staying?"), SIMILE.text) == 0.0
    why = shape_of("Why would a skilled tracker not conclude it is a great bull elephant?")
    assert shape_credit(why, "Why not? Because dwarf cow elephants have big footprints.") == 1.0
    assert shape_credit(why, "He sees a large footprint, long and broad.") == 0.0
    who = shape_of("Who was Aṅgulimāla?")
    assert shape_credit(who, "Now at that time there was a bandit named Aṅgulimāla.") == 1.0
    assert shape_credit(who, "Then Aṅgulimāla went to that woman.") == 0.0
    assert not shape_of("Who was listening?").any  # who someone was, not who did something
    view = shape_of("What wrong view did the monk Sāti hold?")
    assert shape_credit(view, "A mendicant called Sāti had the following harmful misconception: “…”") == 1.0
    assert shape_credit(view, "Wishing to dissuade Sāti from his view, the mendicants grilled him.") == 0.0


def test_a_list_set_out_section_by_section_is_found_by_its_parallel_openings():
    openings = [
        ("1", "So I have heard. At one time the Buddha was staying near Sāvatthī."),
        ("3", "Take a mendicant who is focusing on some subject that gives rise to bad thoughts connected with "
              "desire, hate, and delusion. They should focus on some other subject."),
        ("4", "Now, suppose that mendicant is focusing on some other subject, but bad thoughts connected with "
              "desire, hate, and delusion keep coming up. They should examine the drawbacks."),
        ("5", "Now, suppose that mendicant is examining the drawbacks, but bad thoughts connected with desire, hate, "
              "and delusion keep coming up. They should ignore them."),
        ("6", "Now, suppose that mendicant is ignoring those thoughts, but bad thoughts connected with desire, hate, "
              "and delusion keep coming up. They should stop forming them."),
        ("8", "That is what the Buddha said. Satisfied, the mendicants approved."),
    ]
    assert parallel_sections(openings) == [1, 2, 3, 4]
    segs = [SimpleNamespace(seg_id=f"mn20:{k}.1", en=text, page=None) for k, text in openings]
    view = SimpleNamespace(doc=SimpleNamespace(doc_id="mn20", sutta_id="MN 20", title="How to Stop Thinking"),
                           segments=segs)
    inside = window("mn20", "MN 20", ["mn20:5.1"], [openings[3][1]], 1.0)
    items = _list_items(view, [inside])
    assert [w.seg_ids[0] for w in items] == ["mn20:3.1", "mn20:4.1", "mn20:5.1", "mn20:6.1"]
    outside = window("mn20", "MN 20", ["mn20:8.1"], [openings[5][1]], 1.0)
    assert _list_items(view, [outside]) == []  # the evidence is not in the list: no list is offered


# ---- premises -----------------------------------------------------------------------------------------------
def test_the_premise_a_question_takes_for_granted():
    assert asserted("Why did the Buddha tell Ānanda that women cannot become arahants?") == \
        "women cannot become arahants"
    assert asserted("Did the Buddha say that the self exists?") == "the self exists"
    assert asserted("Why can't women become arahants?") == "can't women become arahants"
    assert asserted("How did the Buddha cross the flood?") is None
    assert asserted("Why does Ānanda say MN 18 should be remembered as the Honey-Cake Discourse?") is None
    # said by someone other than the Buddha or a text: their view, which the text that tells it does not contradict
    assert asserted("Why did the Jain ascetics at the Black Rock tell the Buddha that pleasure is gained through "
                    "pain?") is None
    assert asserted("Does MN 10 say that one should watch the breath?") == "one should watch the breath"


async def test_a_contradicted_premise_is_said_with_the_line_and_that_line_is_chosen():
    canon = FakeCanon([ALLOW, CAPABLE])
    canon.library.bridges = SimpleNamespace(apply=lambda text: SimpleNamespace(pairs=[(("arahant",), ("perfect",))]))
    selection = await select_lines(None, canon, "Why did the Buddha tell Ānanda that women cannot become arahants?")
    premise = selection.premise
    assert premise is not None and premise.how == "ability" and premise.ref == CAPABLE.ref
    note = selection.lead_text()
    assert note.startswith("The texts I have do not say that women cannot become arahants")
    assert "capable" in note and note.endswith(f"[{CAPABLE.ref}].")
    assert any(w.overlaps(CAPABLE) for w in selection.chosen)
    assert "assumes that women cannot become arahants" in selection.hint(canon.recorder)


def test_a_premise_the_lines_bear_out_is_left_alone():
    radiant = window("an1.51", "AN 1.51", ["an1.51:1.1"], ["This mind is radiant, but it is corrupted by "
                                                            "passing corruptions."], 1.0)
    assert check_premise("Why did the Buddha say that the mind is radiant?", [radiant]) is None
    negated = check_premise("Why did the Buddha say that the mind is never corrupted by passing corruptions?",
                            [radiant])
    assert negated is not None and negated.how == "negation"


def test_a_text_that_asks_the_readers_question_and_answers_no_contradicts_what_it_takes_for_granted():
    asked = "Which monk did the Buddha appoint to be the Sangha's refuge, according to Ānanda's talk with Vassakāra?"
    assert presupposed(asked) == "Which monk did the Buddha appoint to be the Sangha's refuge"
    assert presupposed("Did the Buddha appoint a successor?") is None  # asks yes or no: "no" answers it
    denied = window("mn108", "MN 108", ["mn108:7.1", "mn108:7.2", "mn108:7.3"], [
        "“Mister Ānanda, is there even a single monk who was appointed by Mister Gotama, saying:",
        "‘This one will be your refuge when I have passed away,’ to whom you would now turn?”",
        "“No, there is not.”"], 1.0)
    premise = check_premise(asked, [denied])
    assert premise is not None and premise.how == "denied" and premise.ref == denied.ref
    note = premise.note()
    assert note.startswith("The texts I have do not bear out what the question assumes: MN 108 says otherwise")
    assert note.endswith("“No, there is not.” [MN 108:7.1–7.3].")
    # the same question answered yes, or a question the reader did not ask answered no, contradicts nothing
    granted = window("mn108", "MN 108", list(denied.seg_ids), [*denied.texts[:2], "“Yes, there is.”"], 1.0)
    assert check_premise(asked, [granted]) is None
    other = window("mn108", "MN 108", ["mn108:11.1", "mn108:11.2"], [
        "“Is there even a single monk who the monks now honor and respect?”", "“No, there is not.”"], 1.0)
    assert check_premise(asked, [other]) is None
    # a question that only asks what was said, or whose verb the text's question lacks, takes nothing for granted
    saw = window("mn21", "MN 21", ["mn21:21.1", "mn21:21.2"], [
        "“If you frequently reflect on this advice on the simile of the saw, do you see any criticism that you could "
        "not endure?”", "“No, sir.”"], 1.0)
    assert check_premise("What does the Buddha say about anger in the simile of the saw?", [saw]) is None
    assert check_premise("Why did the Buddha stay calm about criticism in the simile of the saw?", [saw]) is None


async def test_the_answer_opens_with_the_premise_and_no_follow_up_restates_it(base):
    reply = ("Thought: I can answer.\nAnswer: Anyone who had a malevolent thought would not be following the "
             "instructions [1].")
    follow = ("Why would someone with a malevolent thought about the bandits be following the instructions?\n"
              "What does the Buddha say about the saw?\nWhat should a mendicant do with a malevolent thought?")
    scholar, _ = scholar_for(base, [reply, follow])
    answer = await scholar.aask("Why did the Buddha say that someone with a malevolent thought toward the bandits "
                                "with the saw would be following his instructions?")
    assert answer.status == "answered"
    assert answer.answer.startswith("The texts I have do not say that someone with a malevolent thought")
    # the note is the answer's own sentence, first among them, citing the line it corrects the premise with
    first = answer.sentences[0]
    assert first.origin == "model" and first.text.startswith("The texts I have do not say") and first.citations
    assert "[" not in first.text
    assert any(c.sutta_id == "MN 21" for c in answer.citations)
    assert not any("be following the instructions" in q for q in answer.follow_ups)
    assert "What should a mendicant do with a malevolent thought?" in answer.follow_ups


async def test_a_premise_corrected_is_an_answer_even_when_the_model_finds_nothing_more_to_say(base):
    scholar, _ = scholar_for(base, ["Thought: I can answer.\nAnswer: I don't find this in the texts I have.",
                                    "What does the Buddha say about the saw?"])
    answer = await scholar.aask("Why did the Buddha say that someone with a malevolent thought toward the bandits "
                                "with the saw would be following his instructions?")
    assert answer.status == "answered"
    assert answer.answer.startswith("The texts I have do not say that someone with a malevolent thought")
    assert "I don't find this" not in answer.answer  # the note is not taken back
    assert answer.sentences[0].origin == "model" and any(c.sutta_id == "MN 21" for c in answer.citations)


# ---- follow-ups ---------------------------------------------------------------------------------------------
def test_follow_ups_never_repeat_the_question_or_the_premise_and_stay_in_the_library():
    asked = "Why did the Buddha tell Ānanda that women cannot become arahants?"
    got = usable_followups([
        "Why did the Buddha tell Ānanda that women cannot become arahants?",
        "Why does the Buddha say women are incapable of becoming arahants?",
        "What are women capable of realizing, according to Kd 20?",
        "How does Avalokiteshvara help women go forth?",
        "Why did Mahāpajāpati Gotamī ask to go forth?",
    ], asked=asked, answered="Women are capable of realizing the fruit of perfection.",
        premise="women cannot become arahants", known=lambda t: not t.startswith("avalokit"))
    assert got == ["What are women capable of realizing, according to Kd 20?",
                   "Why did Mahāpajāpati Gotamī ask to go forth?"]
    assert same_premise("Why can't women become arahants?", "women cannot become arahants")


def test_a_follow_up_restating_a_sentence_that_did_not_stand_is_dropped():
    withdrawn = ['Sāriputta said he felt "incredible" and "amazing" after the spirit struck him on the head.']
    asked = "When a spirit struck Sāriputta on the head, what did he say he felt afterwards?"
    got = usable_followups(["Why did Sāriputta say he felt incredible and amazing afterwards?",
                            "How did Sāriputta react to the spirit's blow?",
                            "Who saw the spirit strike Sāriputta?"], asked=asked, withdrawn=withdrawn)
    assert got == ["How did Sāriputta react to the spirit's blow?", "Who saw the spirit strike Sāriputta?"]
    # what the answer's own sentences that stood say is the reader's to explore, whatever else was taken out
    assert usable_followups(["Why did Sāriputta feel amazing?"], asked=asked, withdrawn=withdrawn,
                            stood="Sāriputta said it was amazing that Moggallāna saw the spirit.")
    # the quoted lines' words are not: the misreading was made of them
    honey = ["The honey-cake discourse illustrates the Buddha's teaching on hunger and how to obtain it."]
    assert not usable_followups(["How does the honey-cake discourse illustrate the Buddha's teaching on hunger and "
                                 "how to obtain it?"], asked="Why does Ānanda call MN 18 the Honey-Cake Discourse?",
                                answered="> “… a person who was weak with hunger was to obtain a honey-cake …”",
                                withdrawn=honey)


def test_a_follow_up_asking_again_what_was_just_answered_is_dropped_but_a_further_question_is_kept():
    got = usable_followups(["What is burning?", "Why is the eye burning?"], asked="What is burning?",
                           answered="The eye is burning, sights are burning.")
    assert got == ["Why is the eye burning?"]


def test_the_question_asked_again_in_the_quoted_lines_words_is_dropped():
    asked = "Why did Mahapajapati Gotami weep outside the gate?"
    answered = "Mahāpajāpati Gotamī wept outside the gate because the Buddha does not permit females to go forth."
    shown = answered + "\n\n> “… Ānanda said to her, “Gotamī, why do you stand crying outside the gate …?”"
    again = "Why did Mahāpajāpati Gotamī stand crying outside the gate?"
    further = "Why did Ānanda ask the Buddha to let females go forth?"
    assert usable_followups([again, further], asked=asked, answered=answered) == [again, further]
    assert usable_followups([again, further], asked=asked, answered=answered, shown=shown) == [further]


def test_a_yes_or_no_follow_up_made_of_the_answers_words_is_dropped_and_so_is_the_question_asked_of_a_chapter():
    answered = "Dhp 183 says to not do evil, embrace the good, and purify one's mind [Dhp 183:1–3]."
    got = usable_followups([
        "Does Dhp 184 say to not do evil, embrace the good, and purify one's mind?",  # whether it said what it said
        "What does The Buddhas say about Dhp 183?",  # the question again, asked of its chapter's title
        "Does the Buddha say patience is the ultimate fervor?",  # yes or no, but about what was not answered
        "What does Dhp 184 say?",
    ], asked="What does Dhp 183 say?", answered=answered)
    assert got == ["Does the Buddha say patience is the ultimate fervor?", "What does Dhp 184 say?"]


async def test_the_fallback_fills_in_for_model_follow_ups_that_restate_the_premise():
    llm = ScriptedLLM(["Why are women incapable of becoming arahants?\nWhy can women not become arahants?"])
    got, source = await generate_followups(llm, "Why did the Buddha say that women cannot become arahants?",
                                           "Women are capable of perfection.", [], premise="women cannot become "
                                           "arahants")
    assert source == "fallback" and got
    assert not any(same_premise(q, "women cannot become arahants") for q in got)



def test_a_long_list_is_quoted_over_its_whole_range_not_only_its_start():
    items = [window("mn61", "MN 61", [f"mn61:{k}.1"], [f"item {k}"], 0.0) for k in range(9, 18)]
    spread = _spread(items, 5)
    assert [w.seg_ids[0] for w in spread] == ["mn61:9.1", "mn61:11.1", "mn61:13.1", "mn61:15.1", "mn61:17.1"]
    assert _spread(items[:3], 5) == items[:3]


def test_the_model_reads_only_the_selected_lines_under_their_turn_numbers():
    from chat.pipeline.select import Selection, focused
    from tools.function_tools import ToolResult, render_evidence

    recorder = TurnRecorder()
    recorder.number([SIMILE_LIST, SIMILE, ALLOW])
    numbered = list(enumerate(recorder.evidence, 1))
    first = ToolResult("MN 22 (The Simile of the Cobra)\n" + render_evidence(numbered[:2]), [], evidence=numbered[:2])
    second = ToolResult(render_evidence(numbered[2:]), [], evidence=numbered[2:])
    selection = Selection(chosen=[SIMILE], numbers=[2], unseen=[2])
    [(_, a), (_, b)] = focused([("lookup", first), ("search", second)], selection, recorder)
    assert a.text.splitlines()[0] == "MN 22 (The Simile of the Cobra)"
    assert "\n[2] MN 22:10.10" in a.text and "[1]" not in a.text and a.evidence == [(2, SIMILE)]
    assert "[3]" not in b.text and b.evidence == []
    assert selection.unseen == []  # read in the results, not repeated in the hint


def _mirror_text():
    segs = [SimpleNamespace(seg_id=f"mn61:8.{i}", en=text, page=None) for i, text in enumerate([
        "What do you think, Rāhula? What is a mirror for?", "It’s for checking your reflection, sir.",
        "In the same way, deeds of body, speech, and mind should be done only after repeated checking.",
        "When you want to act with the body, you should check on that same deed."], 1)]
    doc = SimpleNamespace(doc_id="mn61", sutta_id="MN 61", title="Advice to Rāhula at Ambalaṭṭhika")
    return SimpleNamespace(doc=doc, segments=segs, position={s.seg_id: i for i, s in enumerate(segs)})


def test_each_part_of_a_two_part_question_gets_its_lines_from_the_leading_text(monkeypatch):
    from chat.pipeline import select

    view = _mirror_text()
    checking = window("mn61", "MN 61", ["mn61:8.3", "mn61:8.4"], [s.en for s in view.segments[2:]], 1.0)
    other = window("mn62", "MN 62", ["mn62:1.1"], ["Rāhula, develop meditation like the earth."], 0.8)
    asked: list[tuple[str, list[str]]] = []

    def rank(library, index, part, doc_ids, limit=4, **_):
        asked.append((part, doc_ids))
        # the mirror part's best window runs into the chosen one: only its own lines are new
        return [window("mn61", "MN 61", ["mn61:8.1", "mn61:8.2", "mn61:8.3"], [s.en for s in view.segments[:3]],
                       0.9)] if "mirror" in part else [checking]

    monkeypatch.setattr(select, "rank_windows", rank)
    library = SimpleNamespace(evidence=SimpleNamespace(sutta=lambda doc_id: view if doc_id == "mn61" else None))
    question = "What is a mirror for, in the Buddha's advice to Rāhula, and what should Rāhula check in the same way?"
    chosen = select._each_part_answered(library, question, [checking], [checking, other])
    assert [w.ref for w in chosen] == ["MN 61:8.1–8.2", "MN 61:8.3–8.4"]
    assert [doc_ids for _, doc_ids in asked] == [["mn61"], ["mn61"]]  # never another text
    # a question that asks one thing keeps what the scores chose
    assert select._each_part_answered(library, "What is a mirror for?", [checking], [checking]) == [checking]
    # a part whose best window shares none of its words ("who corrected him?") adds nothing
    lone = "What should Rāhula check in the same way, and who corrected him?"
    mirror = window("mn61", "MN 61", ["mn61:8.1", "mn61:8.2"], [s.en for s in view.segments[:2]], 0.5)
    monkeypatch.setattr(select, "rank_windows", lambda library, index, part, *a, **k: [
        checking if "check" in part else mirror])
    assert select._each_part_answered(library, lone, [checking], [checking]) == [checking]


def test_question_parts():
    from tools.language.sentences import question_parts

    assert question_parts("What did Sāti's view concern, and who corrected him?") == [
        "What did Sāti's view concern", "who corrected him?"]
    assert question_parts("Who is Ānanda? What did he ask?") == ["Who is Ānanda?", "What did he ask?"]
    assert question_parts("What are the burden and the bearer?") == ["What are the burden and the bearer?"]


def _view(doc_id: str, sutta_id: str, title: str, lines: list[str]):
    """A text as the evidence index holds it: its lines as segments 1.1, 1.2, … and where each is."""
    segs = [SimpleNamespace(seg_id=f"{doc_id}:1.{i}", en=text, page=None) for i, text in enumerate(lines, 1)]
    doc = SimpleNamespace(doc_id=doc_id, sutta_id=sutta_id, title=title)
    return SimpleNamespace(doc=doc, segments=segs, position={s.seg_id: i for i, s in enumerate(segs)})


def _seer_text():
    lines = ["The seer took the boy in his arms and lifted up his voice: “He is supreme!”",
             "But then his spirits fell and his tears flowed.", "Seeing the weeping seer, the Sakyans were afraid.",
             "“There will be no threat to the boy; he shall reach the highest awakening.",
             "But I shall die before then, and never hear his teaching.", "That’s why I’m so upset.”",
             "Then the seer left the royal compound."]
    return _view("snp9.9", "Snp 9.9", "The Seer", lines)


def test_asked_why_the_lines_that_give_the_reason_after_the_chosen_ones_join_them():
    from chat.pipeline import select

    view = _seer_text()
    index = SimpleNamespace(sutta=lambda doc_id: view if doc_id == "snp9.9" else None)
    weeping = window("snp9.9", "Snp 9.9", ["snp9.9:1.2", "snp9.9:1.3"], [s.en for s in view.segments[1:3]], 1.0)
    assert shape_of("Why did the seer weep when he saw the boy?").reason
    chosen = select._reason_given(index, [weeping])
    assert [w.ref for w in chosen] == ["Snp 9.9:1.2–1.3", "Snp 9.9:1.4–1.6"] and "That’s why" in chosen[1].text
    # lines that already give a reason are left as they are, and so is a window no reason follows near
    assert select._reason_given(index, chosen) == chosen
    last = window("snp9.9", "Snp 9.9", ["snp9.9:1.7"], [view.segments[6].en], 1.0)
    assert select._reason_given(index, [last]) == [last]
    assert not shape_of("Who saw the boy?").reason


def _request_text():
    lines = ["Devadatta went to the Buddha, bowed, and sat down.",
             "Devadatta said to the Buddha, “Sir, it would be good if the monks lived in the wilderness for life,",
             "and if they didn’t eat fish or meat for life.”",
             "The Buddha replied, “No, Devadatta.",
             "Those who wish may stay in the wilderness.",
             "I have allowed fish and meat that are pure in three respects.”",
             "Devadatta was glad and left."]
    return _view("pli-tv-kd17", "Kd 17", "Schism", lines)


def test_asked_how_someone_answered_their_reply_after_the_request_joins_the_chosen_lines():
    from chat.pipeline import select
    from tools.language.speakers import who_speaks

    view = _request_text()
    speakers = who_speaks([s.en for s in view.segments], frozenset({"devadatta"}))
    index = SimpleNamespace(sutta=lambda doc_id: view if doc_id == "pli-tv-kd17" else None, speakers=lambda v: speakers)
    request = window("pli-tv-kd17", "Kd 17", ["pli-tv-kd17:1.2", "pli-tv-kd17:1.3"],
                     [s.en for s in view.segments[1:3]], 1.0)
    chosen = select._reply_given(index, [request], "buddha")
    assert [w.ref for w in chosen] == ["Kd 17:1.2–1.3", "Kd 17:1.4–1.6"] and "Those who wish" in chosen[1].text
    # the reply already chosen, or asked of someone who does not answer within reach: left as it is
    assert select._reply_given(index, chosen, "buddha") == chosen
    assert select._reply_given(index, [request], "sariputta") == [request]


def _simile_text():
    lines = [("1.1", "“Suppose a person dropped a drop of dye into a cup of milk. Would the milk be stained?”"),
             ("1.2", "“Yes, sir.”"),
             ("1.3", "“Suppose they dropped it into a great lake. Would the lake be stained?”"),
             ("1.4", "“No, sir.”"),
             ("2.1", "“This is how it is for a person of small mind: a small misdeed stains their whole life."),
             ("2.2", "But a person of great mind who does the same is barely touched by it.”"),
             ("3.1", "Then the mendicants rejoiced in what the Buddha said.")]
    return _text_of("an9.9", "AN 9.9", "Dye", lines)


def _text_of(doc_id: str, sutta_id: str, title: str, lines: list[tuple[str, str]]):
    """A text as the evidence index holds it, its lines given with their own segment numbers ("2.1")."""
    segs = [SimpleNamespace(seg_id=f"{doc_id}:{local}", en=text, page=None) for local, text in lines]
    doc = SimpleNamespace(doc_id=doc_id, sutta_id=sutta_id, title=title)
    return SimpleNamespace(doc=doc, segments=segs, position={s.seg_id: i for i, s in enumerate(segs)})


def test_asked_what_a_simile_means_the_lines_that_apply_it_after_the_simile_join_the_chosen_ones():
    from chat.pipeline import select

    view = _simile_text()
    index = SimpleNamespace(sutta=lambda doc_id: view if doc_id == "an9.9" else None)
    told = window("an9.9", "AN 9.9", [s.seg_id for s in view.segments[:4]], [s.en for s in view.segments[:4]], 1.0)
    assert shape_of("What does the simile of the drop of dye illustrate?").meaning
    chosen = select._meaning_given(index, [told])
    # the application and the rest of its paragraph, not the next paragraph's narration
    assert [w.ref for w in chosen] == ["AN 9.9:1.1–1.4", "AN 9.9:2.1–2.2"] and "barely touched" in chosen[1].text
    # lines that already say what it means are left as they are, and so are lines that tell no simile
    assert select._meaning_given(index, chosen) == chosen
    story = window("an9.9", "AN 9.9", ["an9.9:1.2"], [view.segments[1].en], 1.0)
    assert select._meaning_given(index, [story]) == [story]


def test_lines_of_one_text_that_meet_are_read_as_one_window_question_before_answer():
    from chat.pipeline import select

    lines = ["What is the one?", "All beings are sustained by food.", "What is the two?", "Name and form."]
    view = _view("kp9", "Kp 9", "Questions", lines)
    index = SimpleNamespace(sutta=lambda doc_id: view if doc_id == "kp9" else None)
    answer = window("kp9", "Kp 9", ["kp9:1.2", "kp9:1.3", "kp9:1.4"], lines[1:], 1.0)
    other = window("mn1", "MN 1", ["mn1:1.1"], ["Something else."], 0.8)
    asked = window("kp9", "Kp 9", ["kp9:1.1"], lines[:1], 0.5)
    joined = select._one_where_they_meet(index, [answer, other, asked])
    assert [w.ref for w in joined] == ["Kp 9:1.1–1.4", "MN 1:1.1"] and joined[0].text.startswith("What is the one?")
    apart = window("kp9", "Kp 9", ["kp9:1.4"], lines[3:], 0.5)
    first = window("kp9", "Kp 9", ["kp9:1.1"], lines[:1], 0.5)
    assert select._one_where_they_meet(index, [first, apart]) == [first, apart]  # a line between: two windows still
    # together too long to be read whole (the model reads a line cut short): apart
    view.segments[1].en = "All beings are sustained by food, " * 30
    assert len(select._one_where_they_meet(index, [answer, asked])) == 2


class _Weights:
    """An evidence index that only weighs words: the question's words by their given weights."""

    def __init__(self, weights: dict[str, float]):
        self._weights = weights

    def weights(self, tokens: list[str]) -> dict[str, float]:
        return {t: self._weights.get(t, 1.0) for t in tokens}


def test_a_text_in_scope_answers_when_it_holds_a_main_word_and_leaves_the_answer_beside_when_it_holds_light_ones():
    fire = window("sn35.28", "SN 35.28", ["sn35.28:1.4"], ["The eye is burning. Sights are burning."], 0.6)
    saw = window("mn21", "MN 21", ["mn21:20.1"], ["Even if low-down bandits were to sever you limb from limb with a "
                                                  "two-handled saw …"], 0.9)
    index = _Weights({"eye": 0.9, "bandit": 1.7, "handl": 2.9, "burn": 1.2})
    # the reader asks what SN 35.28 says of the eye: its line answers, though MN 21 holds more of the words
    asked = "What does it say about the eye and bandits?"
    assert _within_scope(index, [saw, fire], asked, ["sn35.28"]) == [fire]
    # "eye" weighs less than half of "handl": the question is about the saw, which the text in scope lacks
    asked = "Does it also say the eye meets bandits with a two-handled saw?"
    assert _within_scope(index, [saw, fire], asked, ["sn35.28"]) == [saw, fire]
    # no text in scope, or nothing but it: the ranking as it was
    assert _within_scope(index, [saw, fire], asked, []) == [saw, fire]
    assert _within_scope(index, [fire], asked, ["sn35.28"]) == [fire]


def test_a_long_text_s_line_of_the_asked_structure_past_its_first_windows_is_a_candidate():
    view = shape_of("What did Pāyāsi believe about the afterlife?")
    echoes = [window("dn23", "DN 23", [f"dn23:{i}.1"], ["Come and tell me that there is an afterlife."], 1.2 - i / 100)
              for i in range(6, 12)]
    stated = window("dn23", "DN 23", ["dn23:2.1"], ["Pāyāsi had the following harmful misconception: “There is no "
                                                    "afterlife.”"], 1.1)
    named = window("dn23", "DN 23", ["dn23:33.5"], ["Didn’t you have the view that there is no afterlife?"], 1.0)
    far = window("dn23", "DN 23", ["dn23:40.1"], ["This theory: there is no afterlife."], 0.5)
    assert _shaped([*echoes, stated, named, far], 6, view) == [stated]  # "the view that" names it; 0.5 is too far
    assert _shaped([*echoes, stated], 6, shape_of("Where was Pāyāsi staying?")) == []  # no structure asked for


def test_what_the_question_asks_sets_its_shape_not_what_it_takes_as_known():
    from tools.language.sentences import asked_clause

    assert asked_clause("In the simile of the poisoned arrow, what does the wounded man insist on knowing?") == \
        "what does the wounded man insist on knowing?"
    assert asked_clause("Why is form not self, according to the discourse on the characteristic of not-self?") == \
        "Why is form not self?"
    assert asked_clause("What did Sudinna do that led to the first rule on expulsion?") == "What did Sudinna do?"
    assert asked_clause("In which discourse does the Buddha mention a saw?") == \
        "In which discourse does the Buddha mention a saw?"
    # the simile named is where the answer lies; what is asked is what the man insists on knowing
    assert not shape_of("In the simile of the poisoned arrow, what does the wounded man insist on knowing?").meaning
    assert shape_of("What does the simile of the poisoned arrow mean?").meaning
    # "what is X?" inside a simile asks what X stands for
    assert shape_of("In the simile of the two arrows, what is the second arrow?").meaning
    assert not shape_of("What did Sudinna do that led to the first rule on expulsion?").rule
    assert shape_of("Which rule did Sudinna break?").rule
    # a number in where the answer lies asks for no list
    assert not shape_of("In the simile of the four vipers, what does the raft stand for?").items


def test_a_text_s_own_question_gives_no_reason_and_a_sentence_opened_by_for_gives_one():
    from tools.language.reasons import gives_reason

    assert not gives_reason("What is the reason why some people are short-lived and some long-lived?")
    assert gives_reason("For killing living creatures is the path leading to a short lifespan.")
    assert gives_reason("But form is not-self. For if form were self, it wouldn’t lead to affliction.")
    assert not gives_reason("“For me also, Mallikā, there’s no-one.")
    assert not gives_reason("For seven days he sat cross-legged.")
    assert not gives_reason("and they went for alms")  # a preposition inside a sentence
    assert gives_reason("That’s why I’m so upset.")


def _long_simile_text():
    lines = [("14.1", "“Are you skilled in the road to the city?” “Yes, I am.”"),
             ("14.2", "“Suppose a person was to come along who wanted to go to the city and asked you the road.")]
    lines += [(f"14.{k}", f"Go along it for an hour, and you’ll see landmark number {k}.") for k in range(3, 24)]
    lines += [("14.24", "“In the same way, though the goal is present, some of my disciples achieve it and some fail."),
              ("14.25", "The Realized One is the one who shows the way.”"),
              ("15.1", "Then the brahmin said to the Buddha:")]
    return _text_of("mn9107", "MN 9107", "Roads", lines)


def test_a_simile_told_at_length_is_read_on_to_the_line_that_applies_it_within_its_section():
    from chat.pipeline import select

    view = _long_simile_text()
    index = SimpleNamespace(sutta=lambda doc_id: view if doc_id == "mn9107" else None)
    told = window("mn9107", "MN 9107", ["mn9107:14.1", "mn9107:14.2"], [s.en for s in view.segments[:2]], 1.0)
    chosen = select._meaning_given(index, [told])
    assert [w.ref for w in chosen] == ["MN 9107:14.1–14.2", "MN 9107:14.24–14.25"]
    assert "shows the way" in chosen[1].text


def test_the_few_lines_between_two_chosen_windows_of_one_text_join_them():
    from chat.pipeline import select

    lines = ["Then Sahampati, knowing the Buddha’s thought, thought, ‘Alas! The world will be lost!’",
             "He vanished from the realm of divinity and appeared in front of the Buddha.",
             "He raised his joined palms and said,",
             "‘There are beings with little dust in their eyes; they will understand the teaching.’",
             "Then he went on to say this verse:",
             "‘Fling open the door to freedom from death!’"] + [f"A later line {k}." for k in range(7, 14)]
    view = _view("mn985", "MN 985", "Sahampati", lines)
    index = SimpleNamespace(sutta=lambda doc_id: view if doc_id == "mn985" else None)

    def w(lo, hi):
        return window("mn985", "MN 985", [s.seg_id for s in view.segments[lo:hi + 1]],
                      [s.en for s in view.segments[lo:hi + 1]], 1.0)

    chosen = select._gaps_filled(index, [w(4, 5), w(0, 1)])
    assert [x.ref for x in chosen] == ["MN 985:1.1–1.2", "MN 985:1.3–1.4", "MN 985:1.5–1.6"]
    assert "little dust" in chosen[1].text
    # windows further apart are left as they are
    assert select._gaps_filled(index, [w(0, 1), w(8, 9)]) == [w(0, 1), w(8, 9)]


def test_lines_that_ask_the_reason_and_go_on_past_the_question_answer_why():
    from tools.language.reasons import answers_why

    asked = "“What is the cause, sir, what is the reason why these days whole villages have disappeared?”"
    assert answers_why([asked, "“These days, brahmin, people just love illicit desire.”"])
    assert answers_why([f"{asked} “People love illicit desire.”"])  # question and reply in one line
    assert not answers_why([asked])  # asked, not answered
    assert not answers_why([asked, "“Why do you ask?”"])  # answered with a question
    assert not answers_why(["What is your name?", "“Sela.”"])  # a question that asks no reason
