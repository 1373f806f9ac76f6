"""The consistency checks on their own: numbers, names, polarity."""

from __future__ import annotations

from tools.verification.claim_checks import name_check, names, negation_check, number_check, numbers


def test_numbers_digits_words_ordinals_and_scales():
    assert numbers("five subjects") == {5}
    assert numbers("the true teaching will last five hundred years") == {500}
    assert numbers("eighty-four thousand and 12 more") == {84000, 12}
    assert numbers("a third time he asked") == {3}
    assert numbers("one who has gone forth, first of all") == set()


def test_number_check():
    assert number_check("seven subjects", "focus on five subjects").startswith("number differs")
    assert number_check("he asked three times", "and a third time he asked") is None
    assert number_check("seven subjects", "no number here") is None


def test_names_skip_sentence_starts_titles_and_common_words():
    found = names("In MN 86 King Pasenadi drives out from Sāvatthī to meet the Buddha. Then Ānanda spoke.",
                  lowercase_vocab={"lump"})
    assert set(found) == {"pasenadi", "savatthi", "ananda"}  # "In", "King", "Buddha", "Then" are not names
    assert names("SN 22.95, the Lump of Foam, says so", lowercase_vocab={"lump", "foam"}) == {}


def test_name_check_needs_a_different_name_in_the_evidence():
    claim = names("the Buddha stayed at Ayojjhā on the Yamunā")
    evidence = "At one time the Buddha was staying at Ayojjhā on the bank of the Ganges river."
    assert name_check(claim, evidence, names(evidence)).startswith("person differs")
    assert name_check(claim, "the Buddha was staying at a river", names("a river")) is None


def test_negation_clause_level():
    assert negation_check("purity and impurity are not personal matters",
                          "Purity and impurity are personal matters; no one can purify another.") == "negated"
    assert negation_check("hatred is never laid to rest by hate",
                          "For never is hatred laid to rest by hate; it's laid to rest by love.") is None
    assert negation_check("refraining from killing leads to a long life",
                          "Not killing living creatures is the path leading to a long life.") is None
    assert negation_check("wishing to live one more day counts as living diligently",
                          "wishing to live one more day is called living negligently").startswith("negated")


def test_a_claims_not_that_negates_words_the_matched_lines_lack_is_not_a_contradiction_of_them():
    verse_end = ("then, like a cowherd who counts the cattle of others, they miss out on the blessings of the "
                 "ascetic life.")
    claim = ("a person who recites many scriptures but does not practise will miss out on the blessings of the "
             "ascetic life")
    assert negation_check(claim, verse_end) is None  # its "not" negates practising, which these lines never mention
    assert negation_check("they do not miss out on the blessings of the ascetic life", verse_end) == "negated"
    assert negation_check("they never miss out on the blessings of the ascetic life", verse_end) == "negated"


def test_a_texts_not_that_negates_words_the_claims_clause_lacks_does_not_deny_it():
    line = "I sat cross-legged for seven days without moving, given over to rapture and bliss."
    assert negation_check("She sat for seven days without moving, given over to rapture and bliss.", line) is None
    # what the text's negation does deny is still denied
    assert negation_check("Purity and impurity are personal matters, and one can purify another.",
                          "Purity and impurity are personal matters; no one can purify another.") == "negated"


def test_neither_nor_is_one_negation():
    from tools.verification.claim_checks import polarity

    assert polarity("I crossed the flood neither standing nor swimming") == 1
    assert polarity("not neither here nor there") == 0
    assert negation_check("the deity crossed the flood standing and swimming",
                          "That's how I crossed the flood neither standing nor swimming.") == "negated"
    assert negation_check("the Buddha crossed the flood neither standing nor swimming",
                          "That's how I crossed the flood neither standing nor swimming.") is None


def test_a_claim_that_asserts_what_the_text_denies_is_negated_however_long():
    evidence = ("“But in what way did you cross the flood neither standing nor swimming?” “When I stood still, I "
                "went under. And when I swam, I was swept away. That’s how I crossed the flood neither standing nor "
                "swimming.”")
    assert negation_check("The Buddha crossed the flood by standing still and going under, and by swimming and "
                          "being swept away.", evidence) == "negated"
    # the text says both: the ordinary person sorrows, the noble disciple does not; a claim of either stands
    both = ("When an ordinary person feels pain they sorrow and wail and lament. When a noble disciple feels pain "
            "they don’t sorrow or wail or lament.")
    assert negation_check("An ordinary person would sorrow, wail and lament when in pain.", both) is None


def test_counted_pairs_a_number_with_the_word_it_counts():
    from tools.verification.claim_checks import counted

    assert counted("What six drains on wealth do they avoid?") == {(6, "drain")}
    assert counted("there are four kinds of feeling") == {(4, "feel")}
    assert counted("five hundred mendicants came") == {(500, "mendicant")}
    assert counted("four of them left, and the third time he asked") == set()  # no counted word; ordinals apart
    assert counted("MN 26 says so, and SN 22.95 too") == set()  # references count nothing


def test_count_check_needs_the_same_thing_counted_otherwise():
    from tools.verification.claim_checks import count_check

    text = "He gives up four bad deeds. What six drains on wealth does he avoid? Drinking, gambling, laziness."
    assert count_check("he avoids four drains on wealth", text) == "number differs: 4 drain vs 6 drain"
    assert count_check("he avoids six drains on wealth and four bad deeds", text) is None
    assert count_check("he gambled for seven days", text) is None  # the text never counts days
    # the text counts lamps twice; either count stands
    assert count_check("she lit three lamps", "She lit three lamps. Later she lit five lamps.") is None


def test_a_number_said_of_someone_else():
    from tools.verification.claim_checks import count_holder_check

    segments = ["Then Bhaddiya said,", "‘I lived in the forest for nine years, Kimbila.’", "They walked on.",
                "The path was long.", "The rain came.", "Then Kimbila said,", "‘I lived in the forest one night.’"]
    claim = "In the story, Kimbila says he lived in the forest for nine years."
    assert count_holder_check(claim, names(claim), segments) is None  # Kimbila is named beside the nine years
    segments[1] = "Then Anuruddha lived in the forest for nine years."
    assert "Anuruddha" in count_holder_check(claim, names(claim), segments)
    segments[1] = "‘I lived in the forest for nine years, Anuruddha.’"
    assert count_holder_check(claim, names(claim), segments) is None  # Anuruddha is spoken to, not about
    right = "In the story, Bhaddiya says he lived in the forest for nine years."
    assert count_holder_check(right, names(right), segments) is None  # the right person
    segments[1] = "‘I lived in the forest for nine years.’"
    assert count_holder_check(claim, names(claim), segments) is None  # names nobody: may be said of anyone


def test_a_denial_beside_an_unrelated_affirmation_is_still_denied():
    text = "Sensual pleasures are fleeting. They bring much pain. The foolish person does not see this danger."
    assert negation_check("The foolish person sees the danger in fleeting sensual pleasures", text) == "negated"
    # the text affirms it of someone else, in the same words: a claim holding both stands
    both = "The foolish person does not see this danger. The wise person sees this danger."
    assert negation_check("The wise person sees this danger, which the foolish person misses", both) is None
    # a paraphrase of the denial with a negating verb is not a claim of the opposite
    assert negation_check("The foolish person avoids seeing the danger of sensual pleasures", text) is None


def test_count_check_forgives_a_count_worded_a_little_differently():
    from tools.verification.claim_checks import count_check

    text = "There are these five grasping aggregates. Are the three aggregates of ethics included in the path?"
    assert count_check("form is one of the five aggregates", text) is None
    assert count_check("form is one of the four aggregates", text).startswith("number differs")
    assert count_check("the four great elements", "These are the four primary elements. Two great kings.") is None


def test_each_count_of_the_claim_is_checked_on_its_own_words():
    from tools.verification.claim_checks import count_check

    text = "Developing four powers, a noble disciple overcomes five fears."
    assert count_check("a disciple who develops four powers overcomes five fears", text) is None
    # "five" is right for the fears, which does not make it right for the powers
    assert count_check("a disciple who develops five powers overcomes five fears", text).startswith("number differs")


def test_a_quotation_is_the_texts_own_words_or_misquoted():
    from tools.verification.claim_checks import misquoted, plain_words

    text = plain_words("Suppose there was a lotus that sprouted and grew in the water, but rose up above it, unsoiled. "
                       "In the same way, the Realized One was born and grew up in the world but lives unsoiled by it.")
    assert misquoted("It says “the Realized One was born and grew up in the world but lives soiled by it.”", text) \
        .startswith("misquoted: “the Realized One was born")
    assert misquoted("It says “the Realized One was born and grew up in the world but lives unsoiled by it.”", text) \
        is None
    # pieces between ellipses stand alone; short phrases and single quotes are not quotations to hold to the letter
    assert misquoted("“a lotus that sprouted … lives unsoiled by it”", text) is None
    assert misquoted("He calls it a “risen lotus”, and ‘born in the water’ is the point.", text) is None


def test_a_name_written_in_two_words_is_the_one_word_the_texts_use():
    claim = names("Then Maha Kassapa went for alms to the weavers' street")
    evidence = "Then Venerable Mahākassapa entered Rājagaha for alms, to the street of the weavers."
    assert name_check(claim, evidence, names(evidence)) is None
    other = "Then Venerable Anuruddha entered Rājagaha for alms, to the street of the weavers."
    assert name_check(claim, other, names(other)).startswith("person differs")


def test_a_quotation_that_left_out_a_word_is_mended_to_the_texts_words():
    from tools.verification.claim_checks import mend_quotations

    text = "“Good sir, how did you cross the flood?” “Neither standing nor swimming, sir, I crossed the flood.”"
    mended = mend_quotations('The Buddha said, "Neither standing nor swimming, I crossed the flood."', text)
    assert mended == 'The Buddha said, "Neither standing nor swimming, sir, I crossed the flood"'
    # a changed word, or a left-out negation or number, changes what it says: not mended
    assert mend_quotations('He said, "Standing and swimming, I crossed the flood."', text) is None
    negative = "The mendicant does not know the flood, and crosses it."
    assert mend_quotations('It says "the mendicant does know the flood"', negative) is None


def test_a_questions_alternatives_are_offered_not_stated():
    from tools.verification.evidence import alternatives_in, offered_only

    asked = ("“Suppose they were to ask you: ‘This fire that is quenched: in what direction did it go— east, south, "
             "west, or north?’ How would you answer?”")
    assert offered_only(asked) == {"east", "south", "west", "north"}
    # the answer states one of them: stated, not only offered
    assert offered_only("“Is form permanent or impermanent?” “Impermanent, sir.”") == {"permanent"}
    # a sentence that itself gives them as alternatives may take them from the question
    assert alternatives_in("Vaccha is asked whether it went east, south, west, or north.") >= {"west", "north"}
    assert alternatives_in("The fire goes to the west.") == frozenset()


def test_a_claimed_reason_needs_a_line_that_gives_one():
    from tools.verification.claim_checks import reason_check

    story = ["Then Aṅgulimāla thought, “Oh, how incredible!”", "He hurled his sword into an abyss."]
    assert reason_check("He threw away his sword because he thought it incredible.", story)
    assert reason_check("He threw away his sword since he thought it incredible.", story)
    assert reason_check("He threw away his sword because he thought it incredible.",
                        [*story, "That's why I have stopped."]) is None
    # no reason claimed: "ever since" is time; a reason inside the text's quoted words is the text's
    assert reason_check("Ever since, he has lived without harming.", story) is None
    assert reason_check("He said “I stopped because I gave up the rod.”", story) is None
    assert reason_check("He threw away his sword because he thought it incredible.", []) is None


def test_a_view_given_to_someone_needs_a_line_that_gives_it_as_theirs():
    from tools.verification.relation_checks import view_check

    # a text's way: the view introduced as the person's, stated, then corrected by others who address them
    lines = ["Now at that time a monk called Tissa had the following harmful misconception:",
             "“As I understand it, the self is the body and lasts forever.”",
             "Then, wishing to dissuade Tissa from his view, the monks pressed him,",
             "“Don't say that, Tissa! The body is impermanent and does not last.”",
             "But Tissa obstinately stuck to his misconception."]
    # the correction's words given to the one corrected: he is addressed by them, they are not his
    assert view_check("Tissa held the wrong view that the body is impermanent and does not last.", "tissa", lines)
    assert view_check("Tissa held the harmful misconception that the self is the body and lasts forever.", "tissa",
                      lines) is None
    # a view no line states is left to the other checks; so is a sentence that gives no view, or no lines
    assert view_check("Tissa held the view that the moon is made of cheese.", "tissa", lines) is None
    assert view_check("Tissa was pressed by the monks.", "tissa", lines) is None
    assert view_check("Tissa held the wrong view that the body is impermanent.", "tissa", []) is None


def test_a_persons_own_words_about_others_are_not_who_they_are():
    from tools.verification.relation_checks import speaker_check

    lines = ["At one time the Buddha arrived at Kesamutta, a town of the Kālāmas.",
             "Seated to one side the Kālāmas said to the Buddha:",
             "“There are, sir, some ascetics and brahmins who come to Kesamutta.”"]
    # what the Kālāmas say of others made into who they are
    assert speaker_check("The Kalamas were some ascetics and brahmins who came to Kesamutta.", "kalamas", lines)
    # the narration says who they are; a report of their words says they said it
    assert speaker_check("The Kalamas were the people of a town named Kesamutta.", "kalamas", lines) is None
    assert speaker_check("The Kalamas said that some ascetics and brahmins came to Kesamutta.", "kalamas",
                         lines) is None
    # another's words, introduced as theirs, are not the named person's
    others = ["Then the mendicants said to Tissa:", "“Some ascetics and brahmins come to Kesamutta.”"]
    assert speaker_check("Tissa was one of some ascetics and brahmins who came to Kesamutta.", "tissa", others) is None


def test_a_negation_inside_the_texts_own_words_quoted_is_the_texts_not_the_claims():
    from tools.verification.claim_checks import claims_a_reason, negation_check, without_own_quotes

    line = "“If you fear suffering, if you don’t like suffering, go for refuge to the Buddha, the unaffected."
    # the quotation holds an apostrophe ("don’t"); it was not read as a quotation, and its "not" was the claim's
    claim = 'Rohinī also said, "If you fear suffering, if you don’t like suffering, go for refuge to the Buddha. "'
    assert "don’t" not in without_own_quotes(claim, line)
    assert negation_check(claim, line) is None
    # a quotation the text does not hold is the claim's words, its "not" included
    assert "don’t" in without_own_quotes(claim, "If you fear suffering, if you like suffering, go for refuge to "
                                                "the Buddha.")
    # single quotes: an apostrophe inside does not close them; their reason is the text's
    assert not claims_a_reason("He said ‘it’s because I don’t see it’ to them.")
    assert claims_a_reason("He left because it’s what he wanted.")


def test_words_given_to_the_one_they_were_spoken_to_are_given_to_someone_else():
    from tools.verification.relation_checks import quote_speaker_check

    lines = ["That is what it means, and that’s how you should remember it.”",
             "When he said this, Venerable Ānanda said to the Buddha,",
             "“Sir, suppose a person who was weak with hunger was to obtain a honey-cake.",
             "“Well then, Ānanda, you may remember this exposition of the teaching as ‘The Honey-Cake Discourse’.”"]
    named = {"ananda", "buddha"}
    swapped = 'When Ānanda said this, the Buddha said "Sir, suppose a person who was weak with hunger …"'
    assert quote_speaker_check(swapped, named, lines) == "the cited lines give these words to someone else"
    # the speaker the line names before its verb; words whose line names no one; another line's reply
    assert quote_speaker_check('Ānanda said to the Buddha, "Sir, suppose a person who was weak with hunger"', named,
                               lines) is None
    assert quote_speaker_check('The Buddha said, "That is what it means, and that’s how you should remember it."',
                               named, lines) is None
    assert quote_speaker_check('The Buddha said, "Well then, Ānanda, you may remember this exposition"', named,
                               lines) is None
    # the introduction and the quotation on one line
    one = ["When he said this, Venerable Ānanda said to the Buddha, “Sir, suppose a person who was weak with hunger."]
    assert quote_speaker_check(swapped, named, one)
    assert quote_speaker_check('Ānanda said, "Sir, suppose a person who was weak with hunger"', named, one) is None


def test_a_question_asking_the_reader_to_agree_says_the_positive():
    from tools.language.negation import polarity

    verse = ("Would not they all go to heaven, then: all the frogs and the turtles, serpents, crocodiles, and other "
             "water-dwellers too?")
    claim = ("All the frogs and turtles, serpents, crocodiles, and other water-dwellers would all go to heaven if "
             "bathing in water washed away bad deeds.")
    assert negation_check(claim, verse) is None
    assert polarity("Would not they all go to heaven, then:") == 0 and polarity("Isn’t it so?") == 0
    # an order has no subject after its negation; a statement's "not" is where it always was
    assert polarity("Don’t let the cold harm your skin.") == 1 and polarity("They would not go to heaven.") == 1


def test_advice_from_a_story_of_what_someone_did_is_not_what_the_text_tells():
    from tools.verification.claim_checks import instruction_check

    story = ["At one time a certain mendicant was staying in a forest thicket.",
             "Now at that time that mendicant, during their day’s meditation, was thinking bad, unskillful thoughts."]
    advice = "The mendicant should think bad thoughts, which are sensual, malicious, and cruel."
    assert instruction_check(advice, story) == "the cited lines tell what someone did, not what to do"
    # the story told as a story; lines that tell what to do; a teaching in the present tense; a quoted "should"
    assert instruction_check("The mendicant was thinking bad thoughts.", story) is None
    assert instruction_check("One should not run back to the past.", ["Don’t run back to the past."]) is None
    assert instruction_check("A mendicant should understand when sensual desire is in them.",
                             ["It’s when a mendicant who has sensual desire in them understands it."]) is None
    assert instruction_check('He said "you should go" to the mendicant.', story) is None
    # someone's account of what they have done is no advice either
    verse = ["I’ve plucked out the dart,", "laid down the burden, and done what needed to be done.”"]
    assert instruction_check("The Buddha told her that she should put down the burden.", verse)
    assert instruction_check("She says she has laid down the burden.", verse) is None


def test_anothers_words_of_themselves_said_to_someone_are_not_that_persons():
    from tools.verification.relation_checks import addressed_check

    lines = ["how is it you’ve stopped and I have not?”", "“Aṅgulimāla, I have forever stopped—",
             "I’ve laid aside violence towards all creatures.",
             "But you can’t stop yourself from harming living creatures;",
             "that’s why I’ve stopped, but you have not.”"]
    others = {"buddha"}
    wrong = "Angulimala stopped chasing the Buddha because he had laid aside violence towards all creatures."
    assert addressed_check(wrong, "angulimala", others, lines)
    # said to him of him; said of the speaker, who is named
    assert addressed_check("Angulimala could not stop himself from harming living creatures.", "angulimala",
                           others, lines) is None
    assert addressed_check("The Buddha told Angulimala he had laid aside violence towards all creatures.",
                           "angulimala", others, lines) is None


def test_a_sentence_that_gives_something_what_its_lines_say_it_has_given_up_is_the_opposite():
    from tools.verification.claim_checks import given_up_check

    lines = ["When a mendicant has entered the first absorption, sensual desire, ill will, dullness and drowsiness, "
             "restlessness and remorse, and doubt are given up. ",
             "Placing the mind, keeping it connected, rapture, bliss, and unification of mind are present. ",
             "That’s how the first absorption has given up five factors and possesses five factors.” "]
    assert given_up_check("It has five factors, including sensual desire, ill will, dullness and drowsiness, "
                          "restlessness and remorse, and doubt.", lines)
    # what it has, and what it has given up said as given up, stand
    assert given_up_check("The first absorption has five factors: placing the mind, keeping it connected, rapture, "
                          "bliss, and unification of mind.", lines) is None
    assert given_up_check("The first absorption has given up sensual desire, ill will and doubt.", lines) is None
    assert given_up_check("In it there is no sensual desire, ill will or doubt.", lines) is None
    # named where something is had too, the words are not the given up alone
    had = [*lines, "The first absorption has sensual desire, ill will and doubt as its enemies."]
    assert given_up_check("It has sensual desire, ill will and doubt.", had) is None


def test_two_things_likened_to_what_the_text_likens_only_one_of_them_to():
    from tools.verification.claim_checks import likened_pair_check

    text = ["Suppose a river carried along a big lump of foam: what core could there be in a lump of foam?",
            "In the same way, a mendicant sees any kind of feeling as hollow.",
            "Form is like a lump of foam;", "feeling is like a bubble."]
    assert likened_pair_check("Form and feeling are compared to a big lump of foam.", text)
    # each likened to its own, or both to what the text likens both to, stand
    assert likened_pair_check("Form is like a lump of foam and feeling is like a bubble.", text) is None
    assert likened_pair_check("Form and feeling are seen as hollow.", text) is None
    both = [*text, "Perception is like a lump of foam too."]
    assert likened_pair_check("Form and perception are compared to a lump of foam.", both) is None
    # "…, and" joins another clause, not two things likened
    assert likened_pair_check("The river carries foam, and the bubble stands for feeling.", text) is None
    # neither likened to it line by line: left to the other checks
    assert likened_pair_check("Form and feeling are compared to a river.", text) is None


def test_a_person_called_what_the_text_calls_someone_else():
    from tools.verification.claim_checks import GENERIC
    from tools.verification.relation_checks import identity_check

    text = ["Now at that time there was a bandit named Aṅgulimāla. He was violent, a hardened killer.",
            "“Well then, Aṅgulimāla, go to that woman and say this.” Aṅgulimāla went to that woman and said: …",
            "Then that woman was safe, and so was her baby."]
    cited = text[1:]
    # "woman" is in the cited lines, but no line sets it beside the name
    assert identity_check("Aṅgulimāla was a noble woman who lived in the lay life.", cited, text, GENERIC)
    # what the text calls him, anywhere in it, stands; a description the cited lines lack is left to the others
    assert identity_check("Aṅgulimāla was a bandit.", text, text, GENERIC) is None
    assert identity_check("Aṅgulimāla was a hardened killer.", text, text, GENERIC) is None
    assert identity_check("Aṅgulimāla was a monk.", cited, text, GENERIC) is None
    # a title is not a name to check
    assert identity_check("The Buddha was a woman.", cited, text, GENERIC) is None
