"""Two ingests of one index directory at once: the second stops with a sentence naming the first (or, asked to,
waits for it), instead of both doing the whole work side by side."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from pydantic import PrivateAttr

from indexing.lock import IngestRunningError, ingest_lock
from indexing.pipeline import ingest

from fakes import FakeEmbedding


class HeldEmbedding(FakeEmbedding):
    """Stops in its first embedding call until released: an ingest caught in the middle of its work."""

    _started: threading.Event = PrivateAttr(default_factory=threading.Event)
    _release: threading.Event = PrivateAttr(default_factory=threading.Event)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        self._started.set()
        assert self._release.wait(60), "the test never released the first ingest"
        return super()._get_text_embeddings(texts)


def _first_run_in_background(settings, corpus):
    held = HeldEmbedding(model_name="fake-hash-64", embed_batch_size=8)
    reports: list = []
    thread = threading.Thread(target=lambda: reports.append(ingest(settings, [corpus], embed_model=held,
                                                                     progress=False)))
    thread.start()
    assert held._started.wait(60), "the first ingest never reached its embedding"
    return held, thread, reports


def test_a_second_ingest_says_another_is_running(settings, mini_corpus, fake_embed):
    held, first, reports = _first_run_in_background(settings, mini_corpus)
    try:
        with pytest.raises(IngestRunningError) as caught:
            ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    finally:
        held._release.set()
        first.join(60)
    message = str(caught.value)
    assert f"process {os.getpid()}" in message and str(settings.index_dir) in message and "--wait" in message
    assert fake_embed.texts_embedded == 0  # the second run did none of the work
    assert reports and reports[0].files_ingested == 5
    # the lock went with the first run
    assert ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False).files_unchanged == 5


def test_a_waiting_ingest_runs_after_the_first_and_finds_nothing_to_do(settings, mini_corpus, fake_embed):
    held, first, reports = _first_run_in_background(settings, mini_corpus)
    second: list = []
    waiter = threading.Thread(target=lambda: second.append(ingest(settings, [mini_corpus], embed_model=fake_embed,
                                                                  progress=False, wait=True)))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive() and not second, "the waiting ingest did not wait"
    held._release.set()
    first.join(60)
    waiter.join(60)
    assert reports[0].files_ingested == 5
    assert second[0].files_ingested == 0 and second[0].files_unchanged == 5 and fake_embed.texts_embedded == 0


def test_the_lock_of_a_killed_process_does_not_outlive_it(settings, mini_corpus, fake_embed):
    repo = Path(__file__).resolve().parent.parent
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, pathlib\nfrom indexing.lock import ingest_lock\n"
         "with ingest_lock(pathlib.Path(sys.argv[1])):\n    print('locked', flush=True)\n    sys.stdin.read()",
         str(settings.index_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(repo)})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(IngestRunningError, match=f"process {holder.pid}"):
            ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    finally:
        holder.kill()
        holder.wait(30)
    assert ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False).files_ingested == 5


def test_the_command_line_reports_a_running_ingest_in_one_line(settings, mini_corpus, caplog, monkeypatch):
    from chat.cli.main import main

    monkeypatch.setenv("SCHOLAR_INDEX_DIR", str(settings.index_dir))
    with ingest_lock(settings.index_dir):
        assert main(["ingest", "--no-progress", str(mini_corpus)]) == 2
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and errors[0].startswith("another ingest (process ")
