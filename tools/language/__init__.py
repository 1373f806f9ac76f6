"""The one home of English-language rules: where a new rule about English words or sentences belongs.

    words.py     word lists (all in indexing/data/english.toml), tokenizing, stemming (English and Pali), and the
                 evidence tokenizer that reads irregular forms and other translations' words as the text's
    numbers.py   numbers written as digits, words ("eighty-four thousand") or ordinals ("a third time")

Its lowest layer is `indexing.text` (folding, the BM25 tokenizer and its stopwords), which indexing may import.
"""
