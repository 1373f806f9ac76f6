"""Ingest benchmark: a full ingest into a fresh temporary index, the embedding-only time for the same chunk texts
(same model, batch size and grouping), and a no-op re-ingest.

    HF_HUB_OFFLINE=1 python bench/ingest.py [--corpus PATH ...] [--out bench/out/ingest.json] [--keep]

Default corpus: the configured SCHOLAR_CORPUS_PATHS (the whole shared SuttaCentral corpus). Prints a Markdown
table and writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from indexing import pipeline
from indexing.embeddings import build_embed_model, embed_model_name
from indexing.settings import ScholarSettings
from indexing.sources.router import discover


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def _chunk_texts(settings: ScholarSettings, roots: list[Path]) -> list[str]:
    """The texts the pipeline embeds, in its order (files in discovery order, chunks in document order)."""
    texts: list[str] = []
    for path, reader in discover(roots):
        try:
            _, chunks = pipeline._parse(path, reader, settings)
        except Exception:  # skipped by the pipeline too
            continue
        texts.extend(c.embedding_text() for c in chunks)
    return texts


def _embed_only(model, texts: list[str]) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    group = pipeline.EMBED_GROUP_CHUNKS
    for start in range(0, len(texts), group):
        pipeline.embed_texts(model, texts[start : start + group])
    return time.perf_counter() - started, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, action="append", help="file or folder; repeatable")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "ingest.json")
    parser.add_argument("--keep", action="store_true", help="keep the temporary index")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    base = ScholarSettings()
    roots = [p.resolve() for p in (args.corpus or base.corpus_paths)]
    workdir = Path(tempfile.mkdtemp(prefix="scholar-bench-"))
    settings = base.model_copy(update={"index_dir": workdir / "index", "chroma_url": None, "corpus_paths": roots})
    try:
        t0 = time.perf_counter()
        model = build_embed_model(settings)
        pipeline.embed_texts(model, ["warm-up text for the encoder"] * settings.embed_batch_size)
        load_s = time.perf_counter() - t0

        t0, cpu0 = time.perf_counter(), time.process_time()
        report = pipeline.ingest(settings, roots, embed_model=model, progress=sys.stderr.isatty())
        ingest_s, ingest_cpu = time.perf_counter() - t0, time.process_time() - cpu0
        rss_after_ingest = _peak_rss_mb()
        size = _du(settings.index_dir)

        t0 = time.perf_counter()
        noop = pipeline.ingest(settings, roots, embed_model=model, progress=False)
        noop_s = time.perf_counter() - t0

        texts = _chunk_texts(settings, roots)
        embed_s, embed_cpu = _embed_only(model, texts)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    result = {
        "corpus": [str(r) for r in roots],
        "embedding_model": embed_model_name(settings),
        "embed_batch_size": settings.embed_batch_size,
        "embed_group_chunks": pipeline.EMBED_GROUP_CHUNKS,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "files": report.files_seen,
        "files_skipped": len(report.skipped),
        "chunks": report.chunks_written,
        "ingest_seconds": round(ingest_s, 2),
        "chunks_per_second": round(report.chunks_written / ingest_s, 1) if ingest_s else 0.0,
        "breakdown_seconds": {
            "parse": round(report.parse_seconds, 2),
            "embed": round(report.embed_seconds, 2),
            "chroma_writes": round(report.chroma_seconds, 2),
            "docstore_writes": round(report.docstore_seconds, 2),
            "bm25_build": round(report.bm25_seconds, 2),
            "other": round(ingest_s - report.parse_seconds - report.embed_seconds - report.chroma_seconds
                           - report.docstore_seconds - report.bm25_seconds, 2),
        },
        "embedding_only_seconds": round(embed_s, 2),
        "embedding_only_texts": len(texts),
        "ratio_ingest_to_embedding_only": round(ingest_s / embed_s, 3) if embed_s else None,
        # CPU seconds (all threads) are steadier than wall time when other processes share the cores
        "ingest_cpu_seconds": round(ingest_cpu, 2),
        "embedding_only_cpu_seconds": round(embed_cpu, 2),
        "cpu_ratio_ingest_to_embedding_only": round(ingest_cpu / embed_cpu, 3) if embed_cpu else None,
        "non_embedding_seconds": round(ingest_s - report.embed_seconds, 2),
        "noop_reingest_seconds": round(noop_s, 2),
        "noop_texts_embedded": noop.chunks_written,
        "peak_rss_mb": round(rss_after_ingest, 1),
        "index_bytes": size,
        "model_load_seconds": round(load_s, 2),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")

    rows = [
        ("corpus", ", ".join(Path(r).name for r in roots)),
        ("files / chunks", f"{result['files']} / {result['chunks']} ({result['files_skipped']} skipped)"),
        ("full ingest (wall)", f"{ingest_s:.1f} s"),
        ("throughput", f"{result['chunks_per_second']} chunks/s"),
        ("  of which parse / embed / Chroma / docstore / BM25 / other",
         " / ".join(f"{v:.1f}" for v in result["breakdown_seconds"].values()) + " s"),
        ("embedding only (same texts, batch size, grouping)", f"{embed_s:.1f} s"),
        ("ingest / embedding-only (wall)", f"{result['ratio_ingest_to_embedding_only']}x (target <= 1.3x)"),
        ("ingest / embedding-only (CPU seconds)",
         f"{ingest_cpu:.0f} / {embed_cpu:.0f} = {result['cpu_ratio_ingest_to_embedding_only']}x"),
        ("time not spent embedding", f"{result['non_embedding_seconds']:.1f} s"),
        ("no-op re-ingest", f"{noop_s:.2f} s (target < 10 s)"),
        ("peak RSS", f"{result['peak_rss_mb']:.0f} MB"),
        ("index size on disk", f"{size / 1e6:.1f} MB"),
        ("model load + warm-up (not in the ingest time)", f"{load_s:.1f} s"),
    ]
    sys.stdout.write("| measure | value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows))
    sys.stdout.write(f"\nJSON: {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
