"""One `scholar ingest` at a time per index directory. Two runs at once both did the whole work and wrote the same
stores side by side; the second now waits for the first or stops with a sentence saying who holds the index.

An advisory `flock` on `<index_dir>/ingest.lock`: the kernel releases it when its process ends however it ends
(kill -9 included), so a crashed run never leaves the index locked. The file itself stays; it only names the
holder's process for the message.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from indexing.errors import IndexingError

log = logging.getLogger(__name__)

LOCK_NAME = "ingest.lock"


class IngestRunningError(IndexingError):
    """Another ingest holds this index directory."""


@contextlib.contextmanager
def ingest_lock(index_dir: Path, *, wait: bool = False) -> Iterator[None]:
    index_dir.mkdir(parents=True, exist_ok=True)
    path = index_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            if not wait:
                raise IngestRunningError(
                    f"another ingest{holder} is updating {index_dir}; let it finish (a second run would redo its "
                    f"work), or run `scholar ingest --wait` to start when it is done") from None
            log.info("another ingest%s is updating %s: waiting for it to finish", holder, index_dir)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _holder(fd: int) -> str:
    text = os.pread(fd, 32, 0).decode("ascii", errors="ignore").strip()
    return f" (process {text})" if text.isdigit() else ""
