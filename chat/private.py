"""Files that hold readers' conversations or secrets (memory, chat history, stored panels, signing keys) are
readable by their owner only: created 0600 from the first byte, folders 0700, and tightened if found wider."""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    if path.stat().st_mode & 0o077:
        path.chmod(DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Make `path` exist (empty when new: SQLite takes an empty file as a new database) with mode 0600. A folder
    that already exists is left as it is (var/ holds the index too); a new one is made 0700."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    os.close(fd)
    if path.stat().st_mode & 0o077:
        path.chmod(FILE_MODE)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically, never visible with wider permissions."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
