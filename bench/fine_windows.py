"""Dense vectors of short windows instead of chunks (issue #26, item 1: what is embedded for a passage).

    PYTHONPATH=. python bench/fine_windows.py --cache windows-300.npz [--target 300] \
        --questions ../shared/eval/{external2-dev,external-dev,retrieval-dev,canon-dev}.jsonl \
        --weights 0.02 0.25 0.5 1.0

MiniLM was trained on pairs of a sentence and a short passage; a chunk (700-1,100 characters) averages several
topics into one vector. Here every text's segments are cut into windows of about `--target` characters (headings
left out, the text's ID and title before each, as a chunk's embedding text has them), embedded once with the
configured model (`--cache`), and compared with the index's own chunk vectors:

- dense alone: texts ranked by their best window, and by their best chunk, for each question's dense text;
- in the hybrid search: the dense passage ranking replaced by the windows' (each window stands for the chunk that
  holds its first segment), at each `--weights` value of the dense ranking in the fusion, against the chunks' at the
  configured weight.

Each cell: hit@1 / MRR of the fit / report half (even / odd lines). Nothing is ingested; the index searched is the
configured one (SCHOLAR_INDEX_DIR).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from chat.evals.retrieval import load_questions, ranked_suttas, score_question
from indexing.embeddings import build_embed_model, embed_texts
from indexing.settings import ScholarSettings
from indexing.vocabulary import is_heading, segment_key
from tools.library import Library
from tools.search import retriever
from tools.search.query import analyse_query
from tools.search.retriever import search

K = 10


def windows(library: Library, target: int) -> list[tuple[str, str, str, str]]:
    """(doc_id, sutta ID, first segment, embedded text) of each window."""
    out = []
    store = library.docstore
    for doc in store.documents():
        segs = [s for s in store.segments(doc.doc_id) if s.seg_id and not is_heading(s.seg_id) and s.en.strip()]
        head = " ".join(x for x in (doc.sutta_id, doc.title) if x)
        i = 0
        while i < len(segs):
            j, n = i, 0
            while j < len(segs) and (n < target or j == i):
                n += len(segs[j].en)
                j += 1
            text = " ".join(s.en.strip() for s in segs[i:j])
            out.append((doc.doc_id, doc.sutta_id or doc.doc_id, segs[i].seg_id, f"{head}: {text}" if head else text))
            i = j
    return out


def load_or_embed(library: Library, settings: ScholarSettings, cache: Path, target: int):
    if cache.exists():
        z = np.load(cache, allow_pickle=True)
        return [tuple(m) for m in z["meta"]], z["M"]
    wins = windows(library, target)
    model = build_embed_model(settings, threads=1)
    started = time.process_time()
    m = np.asarray(embed_texts(model, [w[3] for w in wins]), dtype=np.float32)
    sys.stdout.write(f"{len(wins)} windows embedded in {time.process_time() - started:.0f} CPU s\n")
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    meta = [w[:3] for w in wins]
    np.savez(cache, M=m, meta=np.array(meta, dtype=object))
    return meta, m


def first_texts(scores: np.ndarray, texts: list[str], n: int = 50) -> list[str]:
    out: list[str] = []
    for i in np.argsort(-scores):
        if texts[i] not in out:
            out.append(texts[i])
            if len(out) >= n:
                break
    return out


def hit_mrr(rows: list[dict]) -> str:
    """Mean hit@1 / MRR of the rows."""
    return f"{statistics.fmean(r['hit@1'] for r in rows):.3f} / {statistics.fmean(r['mrr'] for r in rows):.3f}"


def halves(rows: list[dict]) -> str:
    return f"{hit_mrr(rows[0::2])} | {hit_mrr(rows[1::2])}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, nargs="+", required=True)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--target", type=int, default=300)
    ap.add_argument("--weights", type=float, nargs="*", default=[])
    args = ap.parse_args()
    settings = ScholarSettings()
    library = Library.open(settings)
    library.warm()
    meta, m = load_or_embed(library, settings, args.cache, args.target)
    cached = library.matrix()
    if cached is None:
        sys.stderr.write("the index's chunk vectors cannot be read\n")
        return 1
    ids, _, chunk_m = cached
    homes = library.chunk_homes
    sutta = {d.doc_id: d.sutta_id or d.doc_id for d in library.docstore.documents()}
    chunk_texts = [sutta.get(homes[c][0], c) if c in homes else c for c in ids]
    window_texts = [w[1] for w in meta]
    files = {p.stem: [q for q in load_questions(p) if q.get("gold")] for p in args.questions}

    sys.stdout.write("dense alone (chunks → windows)\n")
    for stem, questions in files.items():
        rows_c, rows_w = [], []
        for q in questions:
            v = np.asarray(library.embed_query(analyse_query(library, q["question"]).dense_text), dtype=np.float32)
            v /= np.linalg.norm(v)
            also = q.get("also_relevant") or []
            rows_c.append(score_question(first_texts(chunk_m @ v, chunk_texts), q["gold"], also, K))
            rows_w.append(score_question(first_texts(m @ v, window_texts), q["gold"], also, K))
        sys.stdout.write(f"  {stem:<14} {halves(rows_c)}  →  {halves(rows_w)}\n")

    chunk_of = _chunks_of_windows(library, meta)
    chunk_dense = retriever._dense

    def window_dense(lib, text: str, k: int, where: dict | None = None) -> list[tuple[str, float]]:
        if where:  # a search confined to a text or a collection: the chunks' own ranking
            return chunk_dense(lib, text, k, where)
        v = np.asarray(lib.embed_query(text), dtype=np.float32)
        scores = m @ (v / np.linalg.norm(v))
        out, seen = [], set()
        for i in np.argsort(-scores):
            cid = chunk_of[i]
            if cid and cid not in seen:
                seen.add(cid)
                out.append((cid, float(scores[i])))
                if len(out) >= k:
                    break
        return out

    variants = [("chunks", settings.dense_weight)] + [("windows", w) for w in args.weights]
    sys.stdout.write("hybrid search\n")
    for kind, weight in variants:
        retriever._dense = window_dense if kind == "windows" else chunk_dense
        library.settings = settings.model_copy(update={"dense_weight": weight})
        cells = []
        for stem, questions in files.items():
            rows = [score_question(ranked_suttas(search(library, q["question"], k=K, mode="hybrid").passages),
                                   q["gold"], q.get("also_relevant") or [], K) for q in questions]
            cells.append(f"{stem}: {halves(rows)}")
        sys.stdout.write(f"  {kind} {weight:<5} " + "  ".join(cells) + "\n")
        sys.stdout.flush()
    retriever._dense = chunk_dense
    return 0


def _chunks_of_windows(library: Library, meta) -> list[str | None]:
    """The chunk that holds each window's first segment."""
    spans: dict[str, list[tuple[tuple, tuple, str]]] = {}
    out: list[str | None] = []
    for doc_id, _, seg_id in meta:
        if doc_id not in spans:
            spans[doc_id] = [(segment_key(c.segment_start), segment_key(c.segment_end or c.segment_start), c.chunk_id)
                             for c in library.docstore.chunks_of(doc_id) if c.segment_start]
        key = segment_key(seg_id)
        out.append(next((cid for lo, hi, cid in spans[doc_id] if lo <= key <= hi), None))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
