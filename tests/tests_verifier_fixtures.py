"""The claim verifier's tiny hand-made docstore: two suttas with the details the failure kinds change."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.chunking import chunk_document
from indexing.models import SourceDocument, Unit
from indexing.stores.bm25_store import BM25Store
from indexing.stores.docstore import DocStore

SUTTAS = {
    "mn201": ("The Simile of the River", [
        ("1.1", "So I have heard."),
        ("1.2", "At one time the Buddha was staying near Ayojjhā on the bank of the Ganges river."),
        ("2.1", "There the Buddha addressed the mendicants: “A mendicant committed to the higher mind should focus "
                "on five subjects from time to time.”"),
        ("2.2", "Then Venerable Sāriputta explained the four noble truths to the mendicants in detail."),
        ("3.1", "Purity and impurity are personal matters; no one can purify another."),
        ("3.2", "Suppose there was a lotus that sprouted and grew in the water, but rose up above it, unsoiled."),
        ("3.3", "In the same way, the Realized One was born and grew up in the world but lives unsoiled by it."),
    ]),
    "mn202": ("The Longer Discourse with Saccaka", [
        ("1.1", "At one time the Buddha was staying near Vesālī, at the Great Wood."),
        ("2.1", "Because I ate so little, when I tried to rub the skin of my belly, I grabbed my backbone; the skin "
                "of my belly stuck to my backbone."),
        ("2.2", "Whatever a mendicant frequently thinks about and considers becomes their heart’s inclination."),
        ("3.1", "Then Venerable Moggallāna went to the Eastern Monastery and stayed there for seven days."),
    ]),
}


def _doc(uid: str, title: str, segs: list[tuple[str, str]]) -> SourceDocument:
    sutta_id = f"MN {uid[2:]}"
    units = [Unit(text=text, ref=f"{uid}:{local}") for local, text in segs]
    return SourceDocument(doc_id=uid, title=title, source_path=f"/mem/{uid}.json", kind="sutta", units=units,
                          sutta_id=sutta_id, collection="MN", book="MN")


@pytest.fixture
def stores(tmp_path: Path):
    store = DocStore(tmp_path / "docstore.sqlite")
    items = []
    for uid, (title, segs) in SUTTAS.items():
        doc = _doc(uid, title, segs)
        chunks = chunk_document(doc, target_chars=120, max_chars=200)
        store.replace_source(doc.source_path, [doc], chunks)
        items += [(c.chunk_id, c.embedding_text()) for c in chunks]
    bm25 = BM25Store(tmp_path / "bm25")
    bm25.build(items)
    yield store, bm25
    store.close()
