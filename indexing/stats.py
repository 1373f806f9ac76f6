"""`scholar stats`: what the index holds, from the docstore and the stores' own counts."""

from __future__ import annotations

from pathlib import Path

from indexing.errors import IndexNotBuiltError
from indexing.progress import read_progress
from indexing.settings import ScholarSettings
from indexing.stores.docstore import DocStore
from indexing.vocabulary import BASKETS, COLLECTIONS, TRANSLATORS


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def collect_stats(settings: ScholarSettings) -> dict:
    db = settings.index_dir / "docstore.sqlite"
    if not db.exists():
        raise IndexNotBuiltError(f"no index at {settings.index_dir}: run `scholar ingest` (or `make run`)")
    store = DocStore(db)
    counts = store.counts()
    manifest = store.manifest()
    last = store.info("last_ingest") or {}
    stats = {
        **counts,
        "files": len(manifest),
        "files_skipped": sum(1 for e in manifest.values() if e.status == "skipped"),
        "embedding_model": store.info("embed_model"),
        "semantic": _semantic(settings),
        "last_ingest": last,
        "index_dir": str(settings.index_dir),
        "index_bytes": {
            "docstore": _size(db),
            "chroma": _size(settings.index_dir / "chroma"),
            "bm25": _size(settings.index_dir / "bm25"),
        },
    }
    store.close()
    return stats


def _semantic(settings: ScholarSettings) -> dict | None:
    progress = read_progress(settings.index_dir)
    return progress.as_dict() if progress is not None else None


def _per(stats: dict, level: str, order: list[str]) -> str:
    rows = stats.get(f"by_{level}", {})
    keys = [k for k in order if k in rows] + sorted(k for k in rows if k not in order)
    return ", ".join(f"{k or '(other)'} {rows[k]['documents']} texts / {rows[k]['chunks']} chunks" for k in keys)


def format_stats(stats: dict) -> str:
    lines = [
        f"documents: {stats['documents']}   chunks: {stats['chunks']}   files: {stats['files']} "
        f"({stats['files_skipped']} skipped)",
        "by basket: " + _per(stats, "basket", list(BASKETS)),
        "by collection: " + _per(stats, "collection", list(COLLECTIONS)),
        "by translator: " + _per(stats, "translator", list(TRANSLATORS)),
        "texts by book: " + ", ".join(f"{k} {v}" for k, v in sorted(stats["suttas_by_collection"].items())),
        f"embedding model: {stats['embedding_model']}",
        (stats.get("semantic") or {}).get("summary") or "semantic search: no progress record (an index built whole)",
        "index size: " + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in stats["index_bytes"].items()),
        f"last ingest: {(stats['last_ingest'] or {}).get('summary')}",
    ]
    return "\n".join(lines)
