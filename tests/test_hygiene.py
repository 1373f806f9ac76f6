"""Matters of form the reader should never meet: cut-off replies, questions asked back, repeats, dangling clauses."""

from __future__ import annotations

from chat.pipeline import hygiene
from chat.pipeline.draft import parse, render


# each pass over the draft of a text, rendered: what the reader would read
def tidy_draft(text: str) -> str:
    return render(hygiene.tidy_draft(parse(text)))


def without_asides(text: str, question: str, main: set[str]) -> str:
    return render(hygiene.without_asides(parse(text), question, main))


def keeping_to_main_texts(text: str, main: set[str]) -> str:
    return render(hygiene.keeping_to_main_texts(parse(text), main))


def without_echoes(text: str, question: str) -> str:
    return render(hygiene.without_echoes(parse(text), question))


def without_dangling_clauses(text: str, evidence=()) -> str:
    return render(hygiene.without_dangling_clauses(parse(text), evidence))


def test_a_reply_cut_off_by_the_token_limit_loses_its_unfinished_sentence():
    draft = "The eye is burning [SN 35.28:1.4]. The underlying tendency for repulsion underp"
    assert tidy_draft(draft) == "The eye is burning [SN 35.28:1.4]."
    # a finished last sentence the model forgot to cite is left for the checks to judge
    assert tidy_draft("The eye is burning [SN 35.28:1.4]. Sights are burning.").endswith("Sights are burning.")


def test_a_question_asked_back_is_not_an_answer():
    draft = "The king came from his duties [SN 3.25:1.4]. What would King Pasenadi do [SN 3.25:2.5]?"
    assert tidy_draft(draft) == "The king came from his duties [SN 3.25:1.4]."


def test_a_sentence_saying_again_what_an_earlier_one_said_goes():
    draft = ("A mendicant not fettered by relishing is said to live alone [SN 35.63:3.6]. This is defined in the "
             "discourse: a mendicant who is not fettered by relishing is said to live alone [SN 35.63:3.6]. "
             "Craving is their partner [SN 35.63:3.17].")
    assert tidy_draft(draft) == ("A mendicant not fettered by relishing is said to live alone [SN 35.63:3.6]. "
                                 "Craving is their partner [SN 35.63:3.17].")


def test_a_clause_left_dangling_after_the_checks_goes_whole():
    checked = ("Two feelings are felt, physical and mental [SN 36.6:1.6]. When a noble disciple feels pain they "
               "don’t sorrow or [SN 36.6:3.4]")
    assert without_dangling_clauses(checked) == "Two feelings are felt, physical and mental [SN 36.6:1.6]."
    kept = "They don’t sorrow or wail [SN 36.6:3.4]."
    assert without_dangling_clauses(kept) == kept
    # the last words left with neither an end nor a reference are no sentence at all
    assert without_dangling_clauses(f"{kept} The passages") == kept
    assert without_dangling_clauses(f"{kept}\n\n## Gaps") == f"{kept}\n\n## Gaps"  # a study notes heading


def test_a_sentence_that_ends_on_a_particle_as_its_lines_do_is_whole():
    # "on" closes "holding on" as it closes the raft simile's own clause; left open, it is a fragment still
    lines = ["In the same way, I have taught a simile of the teaching as a raft: for crossing over, "
             "not for holding on."]
    whole = "The simile of the raft is about crossing over, not holding on [MN 22:13.26]."
    assert without_dangling_clauses(whole, lines) == whole
    assert without_dangling_clauses("The raft is held on [MN 22:13.26].", lines) == ""
    assert without_dangling_clauses(whole) == ""


def test_a_sentence_whose_words_end_a_clause_of_the_lines_is_whole_though_another_line_runs_on_past_them():
    lines = ["The noble truths of suffering, the origin of suffering, the cessation of suffering, and the practice "
             "that leads to the cessation of suffering.",
             "The noble truth of the cessation of suffering should be realized."]
    whole = ("The four noble truths are suffering, its origin, its cessation, and the practice that leads to the "
             "cessation of suffering [SN 56.29:1.3].")
    assert without_dangling_clauses(whole, lines) == whole
    assert without_dangling_clauses(whole, lines[1:]) == ""  # only ever run on: a quotation stopped mid-phrase


def test_an_aside_from_another_text_that_shares_nothing_with_the_question_goes():
    question = "What did the Buddha tell Vacchagotta about where an extinguished fire goes?"
    draft = ("A quenched fire goes in no direction [MN 72:19.17]. Having extinguished these fires, they become fully "
             "extinguished [Iti 93:8.3]. Those ascetics emerged from the river in midwinter [Kd 1:20.15.1].")
    assert without_asides(draft, question, {"MN 72"}) == (
        "A quenched fire goes in no direction [MN 72:19.17]. Having extinguished these fires, they become fully "
        "extinguished [Iti 93:8.3].")
    # the texts quoted first may be explained in their own words, whatever the question's wording
    assert without_asides("Vaccha is asked which way it went [MN 72:19.14].", "Where did it go?", {"MN 72"}) \
        == "Vaccha is asked which way it went [MN 72:19.14]."


def test_stubs_and_decoding_slips_go():
    draft = ("The interior earth element is hard and solid [MN 62:8.1]. The ear,鼻. [MN 62:12.5] "
             "The Buddha also explains that if. [SN 35.63:3.13]")
    assert tidy_draft(draft) == "The interior earth element is hard and solid [MN 62:8.1]."
    # Pali with its diacritics and typographic quotes are not slips
    pali = "Sāriputta calls it ‘satipaṭṭhāna’ — mindfulness meditation [MN 10:1.2]."
    assert tidy_draft(pali) == pali


def test_what_is_left_of_a_sentence_goes_a_comma_end_a_lone_clause_a_quotation_stopped_mid_phrase():
    evidence = ["Killing, stealing, telling lies, and committing adultery: astute people don’t praise these things."]
    kept = "The four corrupt deeds are killing, stealing, sexual misconduct and lying [DN 31:3.5–3.6]."
    for leftover in ("Several mendicants had,. [MN 38:7.2–7.6]",
                     "That the present phenomenon should be clearly discerned in each [MN 131:3.5–3.6].",
                     "The Teacher went on to say that killing, stealing, telling lies, and committing. [DN 31:3.1]"):
        assert without_dangling_clauses(f"{kept} {leftover}", evidence) == kept
    # a paraphrase that ends where the passage goes on is a whole sentence; so is "That person ..."
    whole = ("Astute people don't praise telling lies and committing adultery [DN 31:4.4]. "
             "That person experiences the feeling of two arrows [SN 36.6:1.10].")
    assert without_dangling_clauses(whole, evidence) == whole


def test_a_sentence_that_trails_off_goes_and_a_quote_mark_closing_nothing_is_dropped():
    kept = "If he does not explain these points, he will return to a lesser life [MN 63:2.14]."
    text = f'Then in the late afternoon, Māluṅkyaputta …. [MN 63:3.1] {kept}"'
    assert without_dangling_clauses(text) == kept
    assert without_dangling_clauses(f"He went to the Buddha... [MN 63:3.1] {kept}") == kept
    # a word cut at its hyphen; a sentence stopped after an article and run on in lower case past its reference
    assert without_dangling_clauses(f'The passage states that "And the Jain Ñātika’s white-clothed lay-." '
                                    f"[DN 33:1.6.5] {kept}") == kept
    assert without_dangling_clauses("If someone grasps the teachings by the. [MN 22:10.7–10.14] correct end, they "
                                    f"lead to their lasting welfare. {kept}") == kept
    # an ellipsis inside a sentence, and a quotation the sentence opens and closes, are the sentence's own
    inside = ('Form is not-self … and so is feeling [SN 22.59:3.1]. He said, "All is burning" [SN 35.28:1.3]. '
              "Pleasant, painful and neutral feeling, e.g. of the eye, are felt [SN 36.6:1.2]. Well-spoken and "
              "well-thought-out words count [AN 5.198:1.1].")
    assert without_dangling_clauses(inside) == inside


def test_a_quotation_opened_and_never_closed_is_closed_before_its_reference():
    opened = ('The verse states, "Tireless all night and day, so declares the peaceful sage [MN 131:10.14–10.16]. '
              'He said "go" to them [MN 1:1.1].')
    assert without_dangling_clauses(opened) == (
        'The verse states, "Tireless all night and day, so declares the peaceful sage" [MN 131:10.14–10.16]. '
        'He said "go" to them [MN 1:1.1].')


def test_a_single_quote_mark_closing_a_quotation_none_opened_inside_it_is_dropped():
    cut = "The Buddha's last words were \"Conditions fall apart. Persist with diligence.'\" [DN 16:6.7.3]."
    assert without_dangling_clauses(cut) == \
        "The Buddha's last words were \"Conditions fall apart. Persist with diligence.\" [DN 16:6.7.3]."
    # opened inside, it is the quotation's own; an apostrophe is no quote mark
    whole = "He said \"the Buddha told me, 'Go.'\" [MN 1:1.1]. It is \"the Buddha's.\" [MN 1:1.2]."
    assert without_dangling_clauses(whole) == whole


def test_a_sentence_citing_the_main_text_and_another_is_held_to_the_main_text():
    draft = ("The Buddha crossed the flood by faith [SN 1.1:1.3–1.8; SN 10.12:5.1]. "
             "By faith one crosses the flood [SN 10.12:5.1].")
    assert keeping_to_main_texts(draft, {"SN 1.1"}) == (
        "The Buddha crossed the flood by faith [SN 1.1:1.3–1.8]. By faith one crosses the flood [SN 10.12:5.1].")
    assert keeping_to_main_texts(draft, set()) == draft


def test_a_sentence_the_last_turn_already_said_is_a_repeat_but_its_quoted_lines_may_be_restated():
    before = ("The Buddha was wandering in the land of the Kosalans when he arrived at Kesamutta [AN 3.65:1.2].\n\n"
              "> “Please, Kālāmas, don't go by oral transmission, don't go by lineage.” [AN 3.65:3.2]")
    draft = ("The Buddha was wandering in the land of the Kosalans when he arrived at Kesamutta [AN 3.65:1.2]. "
             "The Buddha tells the Kālāmas not to go by oral transmission or lineage [AN 3.65:3.2].")
    assert render(hygiene.tidy_draft(parse(draft), before)) == (
        "The Buddha tells the Kālāmas not to go by oral transmission or lineage [AN 3.65:3.2].")
    assert tidy_draft(draft) == draft


def test_a_sentence_that_only_gives_the_question_back_goes():
    asked = "What did he do after he became a monk?"
    assert without_echoes("He became a monk [MN 86:6.21]. He lived alone, withdrawn and resolute [MN 86:16.1].",
                          asked) == "He lived alone, withdrawn and resolute [MN 86:16.1]."
    # reported speech gives nothing more: "DN 31 says that" opens what the text is said to say
    assert without_echoes("DN 31 says that the noble disciple gives up four corrupt deeds [DN 31:2.1].",
                          "What are the four corrupt deeds a noble disciple gives up?") == ""
    # a name the question lacks is the answer to who
    who = "The Buddha saw the monks playing in the river [Bu Pc 53:1.2]."
    assert without_echoes(who, "Who saw the monks playing in the river?") == who
    # a yes or no, which text, or where, is answered by giving the question back with its citation
    assert without_echoes("The eye is burning [SN 35.28:1.4].", "Is the eye burning?") == \
        "The eye is burning [SN 35.28:1.4]."
    assert without_echoes("The eye is burning [SN 35.28:1.4].", "Which discourse says the eye is burning?") == \
        "The eye is burning [SN 35.28:1.4]."
    assert without_echoes("The eye is burning [SN 35.28:1.4].", "Where does the Buddha say the eye is burning?") \
        == "The eye is burning [SN 35.28:1.4]."
