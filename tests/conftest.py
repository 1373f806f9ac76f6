"""Shared fixtures: isolated settings, a tiny SuttaCentral-shaped corpus and a fast deterministic embedding model.

Everything is built in tmp_path, so tests never touch var/index or the shared corpus.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexing.chunking import chunk_document
from indexing.models import SourceDocument, Unit
from indexing.settings import ScholarSettings
from indexing.stores.bm25_store import BM25Store
from indexing.stores.docstore import DocStore

from corpus import write_canon_corpus, write_mini_corpus
from fakes import FakeEmbedding


def pytest_configure(config) -> None:
    # `import chainlit` writes .chainlit/ and .files/ into its app root (the working directory by default): keep
    # them out of the repository. `scholar chat` sets its own root for the child it starts.
    import os
    import tempfile

    os.environ.setdefault("CHAINLIT_APP_ROOT", tempfile.mkdtemp(prefix="chainlit-root-"))


# --------------------------------------------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ScholarSettings:
    """Settings with the index (and OCR cache) in tmp_path, ignoring any SCHOLAR_* env or .env of the developer."""
    import os

    for name in list(os.environ):
        if name.startswith("SCHOLAR_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return ScholarSettings(
        _env_file=None,
        index_dir=tmp_path / "index",
        corpus_paths=[tmp_path / "corpus"],
        chroma_url=None,
    )


# --------------------------------------------------------------------------------------------------------------
# embeddings
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def fake_embed() -> FakeEmbedding:
    return FakeEmbedding(model_name="fake-hash-64", embed_batch_size=8)


# --------------------------------------------------------------------------------------------------------------
# a tiny SuttaCentral tree
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def mini_corpus(tmp_path: Path) -> Path:
    """The mini corpus of tests/corpus.py; returns the tree's root folder."""
    return write_mini_corpus(tmp_path / "corpus")


@pytest.fixture
def canon_corpus(tmp_path: Path) -> Path:
    """The canon corpus of tests/corpus.py: the mini corpus plus verse books, Soma, the Vinaya and parallels."""
    return write_canon_corpus(tmp_path / "corpus")


# --------------------------------------------------------------------------------------------------------------
# what an index holds, store by store
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def index_state():
    """A function settings -> dict of what each store holds: docstore chunks (id -> record), Chroma IDs, BM25 IDs
    (as a list, so duplicates show), documents and manifest statuses. Compare two of them to compare indexes."""
    from dataclasses import asdict

    from indexing.pipeline import Indexes

    def state(settings: ScholarSettings) -> dict:
        indexes = Indexes(settings)
        try:
            bm25_ids = json.loads((settings.index_dir / "bm25" / "ids.json").read_text())
            return {
                "chunks": {c.chunk_id: asdict(c) for c in indexes.docstore.iter_chunks()},
                "chroma": sorted(indexes.chroma.collection.get(include=[])["ids"]),
                "bm25": sorted(bm25_ids),
                "documents": sorted(d.doc_id for d in indexes.docstore.documents()),
                "segments": sum(len(indexes.docstore.segments(d.doc_id)) for d in indexes.docstore.documents()),
                "manifest": {Path(k).name: e.status for k, e in indexes.docstore.manifest().items()},
            }
        finally:
            indexes.docstore.close()

    return state


# --------------------------------------------------------------------------------------------------------------
# a hand-made docstore for the claim verifier
# --------------------------------------------------------------------------------------------------------------
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
    "mn203": ("The Monks at the River", [
        ("1.1", "At one time the Buddha was staying at Sāvatthī in Jeta’s Grove."),
        ("1.2", "Some young monks were splashing in the water of the river Aciravatī."),
        ("1.3", "Just then, while King Pasenadi was walking on his terrace with Queen Mallikā,"),
        ("1.4", "he saw the young monks splashing in the river."),
        ("1.5", "He said to the queen, “Mallikā, these monks are splashing in the water.”"),
    ]),
    "mn204": ("Two Kinds of Traveller", [
        ("1.1", "“Sir, how is one who travels light defined? And how is one who travels burdened defined?”"),
        ("2.1", "“If a mendicant hoards robes and bowls and keeps counting them,"),
        ("2.2", "worry arises."),
        ("2.3", "A mendicant who is weighed down by worry is said to travel burdened."),
        ("3.1", "If a mendicant hoards nothing and counts nothing,"),
        ("3.2", "worry does not arise."),
        ("3.3", "A mendicant who is free of worry is said to travel light.”"),
    ]),
    "mn205": ("The Doubting Monk", [
        ("1.1", "Then as Venerable Tissa was in retreat this thought came to his mind:"),
        ("1.2", "“The Buddha has not answered my question about the stars."),
        ("1.3", "I will go to him and ask him."),
        ("1.4", "If he answers me,"),
        ("1.5", "I will stay on under him and keep the training.”"),
    ]),
    "mn206": ("The Silent Teacher", [
        ("1.1", "Then the wanderer Upaka went up to the Buddha and said to him:"),
        ("1.2", "“Mister Gotama, is the world finite?”"),
        ("1.3", "But the Buddha kept silent, and Upaka got up and left."),
        ("2.1", "Then Venerable Kimbila said to the Buddha:"),
        ("2.2", "“Sir, why didn’t you answer Upaka’s question?”"),
        ("2.3", "“Kimbila, when Upaka asked me whether the world is finite, if I had answered that the world is "
                "finite, I would have been siding with the ascetics who are finitists.”"),
    ]),
    "mn207": ("A Lump of Foam", [
        ("1.1", "“Suppose a river carried along a big lump of foam: what core could there be in a lump of foam?"),
        ("1.2", "In the same way, a mendicant sees any kind of feeling as hollow."),
        ("2.1", "Form is like a lump of foam;"),
        ("2.2", "feeling is like a bubble.”"),
    ]),
    "mn208": ("The Bandit", [
        ("1.1", "Now at that time there was a bandit named Aṅgulimāla."),
        ("1.2", "He was violent, a hardened killer."),
        ("2.1", "Later Aṅgulimāla saw a woman in a difficult labour."),
        ("2.2", "“Aṅgulimāla, go to that woman and bless her.”"),
    ]),
    "mn209": ("The Chieftain's View", [
        ("1.1", "Kassapa taught: “There is an afterlife. There is fruit and result of good and bad deeds.”"),
        ("2.1", "But the chieftain Pāyāsi had the following harmful misconception:"),
        ("2.2", "“There is no afterlife. There’s no fruit or result of good and bad deeds.”"),
    ]),
    "mn210": ("Crossing the Flood", [  # AN 4.196:6.1–7.2
        ("1.1", "“In the same way, Sāḷha, those ascetics and brahmins who teach fervent mortification in disgust of "
                "sin—regarding it as essential and sticking to it—are incapable of crossing the flood."),
        ("1.2", "And those ascetics and brahmins whose livelihood and behavior by way of body, speech, and mind is not "
                "pure are also incapable of knowing and seeing, of supreme awakening."),
        ("2.1", "But those ascetics and brahmins who don’t teach mortification in disgust of sin—not regarding it as "
                "essential or sticking to it—are capable of crossing the flood."),
        ("2.2", "And those ascetics and brahmins whose behavior by way of body, speech, and mind is pure are also "
                "capable of knowing and seeing, of supreme awakening.”"),
    ]),
    "mn211": ("The Empty Villages", [
        ("1.1", "“What is the cause, sir, what is the reason why these days whole villages have disappeared?”"),
        ("1.2", "“These days, brahmin, people just love illicit desire, and they murder each other with knives.”"),
        ("2.1", "Later the brahmin went home to his estate."),
        ("2.2", "Its fields were empty of workers."),
    ]),
    "mn212": ("Reed Baskets", [  # SN 56.32's form: a statement set out, then judged in a line of its own
        ("1.1", "“Mendicants, suppose someone were to say:"),
        ("1.2", "‘Without first learning the four kinds of diligence, I will finish the long journey across the "
                "mountains.’"),
        ("1.3", "That is not possible."),
        ("2.1", "It’s as if someone were to say: ‘I’ll weave a basket out of dry reeds and carry river water home "
                "in it.’"),
        ("2.2", "That is not possible."),
        ("3.1", "But suppose someone were to say: ‘After learning the four kinds of diligence, I will finish the long "
                "journey across the mountains.’"),
        ("3.2", "That is possible."),
        ("4.1", "What do you think, mendicants? Would a basket of dry reeds hold the river water all the way home?”"),
        ("4.2", "“No, sir.”"),
        ("5.1", "Their talk at the river ford went on. Kāḷa said, “Soṇa, is there even a single mendicant who was "
                "appointed by the teacher, saying:"),
        ("5.2", "‘This one will be your refuge when I have passed away’?”"),
        ("5.3", "“No, there is not.”"),
    ]),
}


def _doc(uid: str, title: str, segs: list[tuple[str, str]]) -> SourceDocument:
    sutta_id = f"MN {uid[2:]}"
    units = [Unit(text=text, ref=f"{uid}:{local}") for local, text in segs]
    return SourceDocument(doc_id=uid, title=title, source_path=f"/mem/{uid}.json", kind="sutta", units=units,
                          sutta_id=sutta_id, collection="MN", book="MN")


@pytest.fixture
def stores(tmp_path: Path):
    """A docstore and BM25 index of two hand-made suttas (SUTTAS), for the claim verifier."""
    store = DocStore(tmp_path / "docstore.sqlite")
    items = []
    for uid, (title, segs) in SUTTAS.items():
        doc = _doc(uid, title, segs)
        chunks = chunk_document(doc, target_chars=120, max_chars=200)
        store.replace_sources([(doc.source_path, [doc], chunks, None)])
        items += [(c.chunk_id, c.embedding_text()) for c in chunks]
    bm25 = BM25Store(tmp_path / "bm25")
    bm25.build(items)
    yield store, bm25
    store.close()


@pytest.fixture
def base(tmp_path_factory):
    """Where the tools index of the scripted-LLM tests lives (built once per session by scholar_for)."""
    return tmp_path_factory.getbasetemp() / "agent-index"


# --------------------------------------------------------------------------------------------------------------
# PostgreSQL (SCHOLAR_DATABASE_URL)
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory):
    """One throwaway cluster for the session (tests/pg_cluster.py). Skipped where Debian's postgresql is not
    installed, except in CI (CI=true), where `make setup` installs it and a skip would hide the tests."""
    import os

    from pg_cluster import cluster, pg_bin

    if pg_bin() is None:
        reason = "PostgreSQL's initdb/pg_ctl are not installed: `make setup` (or apt-get install postgresql)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    with cluster(tmp_path_factory.mktemp("postgres")) as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server, request) -> str:
    """A new, empty database on the session's cluster for one test."""
    import re
    import uuid

    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = "t_" + re.sub(r"\W", "_", request.node.name.lower())[:40] + "_" + uuid.uuid4().hex[:6]
    engine = create_engine(make_url(postgres_server).set(drivername="postgresql+psycopg"),
                           isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return str(make_url(postgres_server).set(database=name))
