"""Could corpus statistics replace the hand-picked Pali -> Sujato pairs of the vocabulary bridges?

    PYTHONPATH=. python bench/align_pairs.py [--index var/index]

Every chunk has its English (the BM25 index) and its aligned Pali root (the Pali BM25 index), so a Pali word's
likeliest English rendering is the English word that shares the most passages with it: Dice = 2 |P ∩ E| / (|P| + |E|)
over chunks, P the chunks whose Pali holds one of the word's inflected forms, E those whose English holds the token.
For each `pali` word of `tools/data/bridges.toml`, prints whether the best (and the best three) English tokens by
Dice include the row's Sujato rendering, and the rows where the statistics disagree.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from indexing.pali_index import nasal
from indexing.settings import ScholarSettings
from indexing.text import fold, tokenize
from tools.library import Library
from tools.search.bridges import load_bridges


class AlignedDice:
    """Pali word -> English tokens by Dice over chunks (both BM25 indexes hold the same chunks in the same order)."""

    def __init__(self, library: Library):
        english, pali = library.bm25, library.bridges.pali
        if pali is None or english.ids != pali.store.ids:
            raise SystemExit("the Pali index is missing or does not hold the English index's chunks in its order")
        self.pali = pali
        scores = english._bm25.scores  # CSC: one column of chunk indices per token
        indptr, indices = scores["indptr"], scores["indices"]
        tokens = np.repeat(np.arange(len(indptr) - 1, dtype=np.int32), np.diff(indptr))
        order = np.argsort(indices, kind="stable")
        self.chunk_tokens = tokens[order]
        self.chunk_ptr = np.searchsorted(indices[order], np.arange(len(english.ids) + 1))
        self.df = np.diff(indptr)
        self.words = {i: w for w, i in english._bm25.vocab_dict.items()}

    def best(self, word: str, n: int = 3) -> list[tuple[str, float]]:
        store = self.pali.store
        cols = store._bm25.scores
        vocab = store._bm25.vocab_dict
        forms = self.pali.forms(word)
        if not forms:
            return []
        chunks = np.unique(np.concatenate([cols["indices"][cols["indptr"][vocab[f]]:cols["indptr"][vocab[f] + 1]]
                                           for f in forms]))
        shared = np.bincount(np.concatenate([self.chunk_tokens[self.chunk_ptr[c]:self.chunk_ptr[c + 1]]
                                             for c in chunks]), minlength=len(self.df))
        dice = 2 * shared / (len(chunks) + self.df)
        return [(self.words[i], round(float(dice[i]), 2)) for i in np.argsort(-dice)[:n]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path)
    args = ap.parse_args()
    settings = ScholarSettings() if args.index is None else ScholarSettings(index_dir=args.index)
    stats = AlignedDice(Library.open(settings))
    rows = top1 = top3 = 0
    for bridge in load_bridges(settings.bridges_file):
        want = {t for rendering in bridge.sujato for t in tokenize(rendering)}
        for word in bridge.pali:
            best = stats.best(nasal(fold(word).replace(" ", "")))
            rows += 1
            top1 += bool(best) and best[0][0] in want
            top3 += bool(want & {w for w, _ in best})
            if not best or best[0][0] not in want:
                sys.stdout.write(f"{word:<26} table: {bridge.sujato[0]:<30} statistics: {best}\n")
    sys.stdout.write(f"{rows} Pali words: the statistics' best token is the table's rendering for {top1}, "
                     f"among the best three for {top3}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
