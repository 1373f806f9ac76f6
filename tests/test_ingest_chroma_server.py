"""The Chroma server mode: `chroma run` on loopback, SCHOLAR_CHROMA_URL pointing at it."""

import shutil
import sys
from pathlib import Path

import pytest

from indexing.pipeline import Indexes, ingest
from indexing.stores.chroma_store import ChromaStore

from local_server import free_port, running

CHROMA = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))


@pytest.fixture
def chroma_server(tmp_path):
    if not Path(CHROMA).exists():
        pytest.skip("the `chroma` CLI (from the chromadb package) is not on PATH or beside the interpreter")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [CHROMA, "run", "--path", str(tmp_path / "chroma-server"), "--host", "127.0.0.1", "--port", str(port)]
    with running(cmd, f"{url}/api/v2/heartbeat", tmp_path / "chroma.log", timeout=30, stop_timeout=10):
        yield url


def test_ingest_and_query_through_a_chroma_server(settings, mini_corpus, fake_embed, chroma_server):
    remote = settings.model_copy(update={"chroma_url": chroma_server})
    report = ingest(remote, [mini_corpus], embed_model=fake_embed, progress=False)
    assert report.chunks_written > 0
    assert not (remote.index_dir / "chroma").exists()  # nothing went to an embedded store

    indexes = Indexes(remote)
    assert indexes.chroma.count() == report.chunks_written == indexes.docstore.chunk_count()

    store = ChromaStore(remote.index_dir / "chroma", remote.chroma_collection, chroma_server)
    hits = store.search(fake_embed.get_query_embedding("hatred is laid to rest by love"), k=3)
    assert indexes.docstore.chunk(hits[0].chunk_id).sutta_id == "Dhp 4"
    mn_only = store.search(fake_embed.get_query_embedding("mindfulness meditation"), k=5, where={"collection": "MN"})
    assert mn_only and {indexes.docstore.chunk(h.chunk_id).collection for h in mn_only} == {"MN"}

    fake_embed.reset_counts()
    again = ingest(remote, [mini_corpus], embed_model=fake_embed, progress=False)
    assert again.files_unchanged == 5 and fake_embed.texts_embedded == 0
    assert indexes.chroma.count() == report.chunks_written
