"""A throwaway PostgreSQL cluster on loopback: initdb and pg_ctl (Debian's `postgresql` package) in a temporary
folder, stopped and removed at the end. Used by the tests' `postgres_url` fixture and by bench/replicas.py.

initdb refuses to run as root (CI runs as root): the cluster then belongs to `nobody`, which owns its folder.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

DATABASE = "scholar"


def pg_bin() -> Path | None:
    """The folder of initdb/pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<version>/bin (not on PATH)."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def cluster(log_dir: Path | None = None) -> Iterator[str]:
    """Yields the SQLAlchemy URL of a fresh, empty database on 127.0.0.1 (trust authentication, loopback only)."""
    bindir = pg_bin()
    if bindir is None:
        raise FileNotFoundError("PostgreSQL's initdb/pg_ctl are not installed (Debian package postgresql)")
    root = Path(tempfile.mkdtemp(prefix="scholar-pg-"))
    data, log = root / "data", (log_dir or root) / "postgres.log"
    as_user: list[str] = []
    if os.geteuid() == 0:
        import pwd

        nobody = pwd.getpwnam("nobody")
        os.chown(root, nobody.pw_uid, nobody.pw_gid)
        as_user = ["runuser", "-u", "nobody", "--"]
        log = root / "postgres.log"  # where nobody may write
    port = _free_port()

    def run(*cmd: str) -> None:
        subprocess.run([*as_user, *cmd], check=True, capture_output=True, cwd=root, timeout=120)

    run(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off -c max_connections=200"
    try:
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start")
        run(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", DATABASE)
        yield f"postgresql://postgres@127.0.0.1:{port}/{DATABASE}"
    finally:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        if log_dir is not None and log.exists() and log.parent != log_dir:
            with contextlib.suppress(OSError):
                shutil.copy(log, log_dir / "postgres.log")
        shutil.rmtree(root, ignore_errors=True)
