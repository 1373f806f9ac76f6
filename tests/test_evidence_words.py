"""Claim words meet the translation's words: older renderings map onto Sujato's vocabulary, both sides stemmed."""

from tools.language.words import words
from tools.verification.evidence import claim_tokens


def test_older_renderings_map_to_the_translations_words():
    assert words("The monks attained nirvana") == words("The mendicants attained extinguishment")
    assert words("enlightenment") == words("awakening")
    assert "love" in words("loving-kindness")


def test_plain_words_are_untouched():
    assert words("bandits with two handles") == ["bandit", "two", "handle"]
    assert claim_tokens("the text says bandits sever limbs") == ["bandit", "sever", "limb"]


def test_an_ing_form_meets_its_silent_e_stem():
    from tools.verification.evidence import _matches

    segment = frozenset(words("Defilements given up by restraint, by living wisely, by taking care"))
    for claim_word in ("giving", "live", "take"):
        [token] = words(claim_word)
        assert _matches(token, segment, frozenset()), claim_word
    assert not _matches(words("burning")[0], segment, frozenset())


def test_an_ing_or_ed_form_meets_its_stem_with_the_consonant_it_doubled():
    from tools.verification.evidence import _matches

    segment = frozenset(words("They set out to cross a desert, and stopped to beg"))
    for claim_word in ("setting", "stop", "begging"):
        [token] = words(claim_word)
        assert _matches(token, segment, frozenset()), claim_word
    # words that end in a doubled l or s are whole words, not a stem's doubling
    assert not _matches(words("falling")[0], frozenset(words("a fal")), frozenset())
    assert not _matches(words("sitting")[0], segment, frozenset())


def test_a_past_form_meets_its_base():
    from tools.verification.evidence import _matches

    segment = frozenset(words("She wept and fled, and they carried her and cried out"))
    for claim_word in ("weeping", "flee", "carry", "cry"):
        [token] = words(claim_word)
        assert _matches(token, segment, frozenset()), claim_word
    assert not _matches(words("crown")[0], segment, frozenset())
