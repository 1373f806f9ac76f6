"""Claim words meet the translation's words: older renderings map onto Sujato's vocabulary, both sides stemmed."""

from tools.evidence import claim_tokens, words


def test_older_renderings_map_to_the_translations_words():
    assert words("The monks attained nirvana") == words("The mendicants attained extinguishment")
    assert words("enlightenment") == words("awakening")
    assert "love" in words("loving-kindness")


def test_plain_words_are_untouched():
    assert words("bandits with two handles") == ["bandit", "two", "handle"]
    assert claim_tokens("the text says bandits sever limbs") == ["bandit", "sever", "limb"]
