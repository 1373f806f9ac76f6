"""The one home of English-language rules: where a new rule about English words or sentences belongs.

    words.py      word lists (all in indexing/data/english.toml, read by name), the follow-up grammar's patterns,
                  tokenizing (BM25 tokens, folded words, written words), stemming (English light_stem, pali_stem),
                  and the claim checks' words() that reads irregular forms and other translations' words as the text's
    sentences.py  where a sentence ends, an answer's sentences with their citations, clauses and phrases
    numbers.py    numbers written as digits, words ("eighty-four thousand") or ordinals ("a third time")
    negation.py   negation words, a clause's polarity, antonyms
    reasons.py    a line that gives a reason, a sentence that claims one ("… because …")

Its lowest layer is `indexing.text` (folding, the BM25 tokenizer and its stopwords, split_at_stops), which indexing
may import. tests/test_language_home.py keeps word lists and sentence-splitting regexes out of every other module.
"""
