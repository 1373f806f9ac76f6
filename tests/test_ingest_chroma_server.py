"""The Chroma server mode: `chroma run` on loopback, SCHOLAR_CHROMA_URL pointing at it."""

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from indexing.pipeline import Indexes, ingest
from indexing.stores.chroma_store import ChromaStore

CHROMA = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    if not Path(CHROMA).exists():
        pytest.skip("the `chroma` CLI (from the chromadb package) is not on PATH or beside the interpreter")
    port = _free_port()
    log = (tmp_path / "chroma.log").open("w")
    proc = subprocess.Popen(
        [CHROMA, "run", "--path", str(tmp_path / "chroma-server"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chroma server did not start: {(tmp_path / 'chroma.log').read_text()[-500:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


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
