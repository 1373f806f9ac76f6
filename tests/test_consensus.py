"""The drafts the model's replies most agree on are tried first."""

from chat.pipeline.consensus import agreement, by_agreement, seconded
from chat.pipeline.say import Said

QUESTION = "When a spirit struck Sāriputta on the head, what did he say he felt afterwards?"


def test_the_draft_most_replies_agree_with_comes_first_and_a_lone_slip_goes():
    slip = [Said(1, "Sāriputta said he felt impressive and amazing.")]
    hurt = [Said(2, "Sāriputta said his head hurt a little.")]
    also = [Said(2, "He said he was keeping well, but his head did hurt a little.")]
    ordered = by_agreement([slip, [], hurt, also], voters=[[Said(2, "His head hurt a little.")]], question=QUESTION)
    assert ordered == [hurt, also] or ordered == [also, hurt]  # "impressive and amazing": no other reply says so


def test_agreement_counts_only_what_a_draft_adds_to_the_question():
    echo = [Said(1, "A spirit struck Sāriputta on the head.")]  # the question's words, nothing of its own
    assert agreement(echo, [[Said(1, "The spirit struck Sāriputta's head.")]], QUESTION) == 0.0
    hurt = [Said(1, "His head hurt a little.")]
    assert agreement(hurt, [[Said(2, "It hurt a little.")]], QUESTION) > agreement(hurt, [[Said(1, "Amazing.")]],
                                                                                 QUESTION)


def test_ties_keep_the_sampling_order():
    a, b = [Said(1, "The eye and sights are burning.")], [Said(1, "The eye and the ear are burning.")]
    assert by_agreement([a, b], [], "What burns?") == [a, b]


def test_a_sentence_no_other_reply_says_anything_of_is_a_slip_and_goes():
    question = "Where does an extinguished fire go, according to the Buddha's reply to Vacchagotta?"
    sample = [Said(2, "In the direction they had been going."),
              Said(2, "Gotama, when they were extinguishing a fire that was burning in front of him.")]
    others = [[Said(2, "An extinguished fire goes in the direction it was facing.")],
              [Said(2, "It goes in the direction of lack of fuel.")]]
    assert seconded(sample, others, question) == sample[:1]
    assert by_agreement([sample[1:]], others, question) == []
