"""Where conversations and chat history are kept: SQLite files beside the index (the default), or one database named
by SCHOLAR_DATABASE_URL (PostgreSQL) that several replicas of the app share.

Tables are created and changed only by `migrate`: one transaction per component that first takes a lock held until
it commits (PostgreSQL: an advisory lock; SQLite: BEGIN IMMEDIATE, its write lock), then applies the steps newer
than the version recorded in `scholar_schema`. Twenty first questions at once, or two replicas starting together,
so apply each step exactly once, and a later release adds a step rather than editing one.

Driver errors are translated here, once, into one sentence that names the database and what to do (`StoreError`):
a reader never sees SQL or a traceback.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from chat.errors import ChatError
from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

# pg_advisory_xact_lock takes a bigint; any fixed number that no other program on the database uses.
_PG_LOCK_KEY = 0x5C401A2
SQLITE_BUSY_TIMEOUT_S = 15.0

Step = str | Callable[[Connection], None]


class StoreError(ChatError):
    """A database (conversation memory, chat history) cannot be used; the message names it and says what to do."""


@dataclass(frozen=True)
class Database:
    """One database: its SQLAlchemy URL, and what it is for ("conversation memory", "chat history")."""

    url: URL
    purpose: str

    @classmethod
    def from_url(cls, url: str, purpose: str) -> Database:
        try:
            parsed = make_url(url)
        except ArgumentError as exc:
            raise StoreError(f"SCHOLAR_DATABASE_URL {url!r} is not a database URL: write it as "
                             "postgresql://user:password@host:5432/dbname") from exc
        backend = parsed.get_backend_name()
        if backend in ("postgresql", "postgres"):
            # psycopg 3 serves both the async stores and the few synchronous reads (logins, element owners).
            return cls(parsed.set(drivername="postgresql+psycopg"), purpose)
        if backend == "sqlite" and parsed.database:
            return cls(parsed.set(drivername="sqlite"), purpose)
        raise StoreError(f"SCHOLAR_DATABASE_URL names a {backend} database; only PostgreSQL "
                         "(postgresql://user:password@host:5432/dbname) is supported; unset, SQLite files are used")

    @classmethod
    def sqlite(cls, path: Path, purpose: str) -> Database:
        return cls(URL.create("sqlite", database=str(path)), purpose)

    @property
    def is_sqlite(self) -> bool:
        return self.url.get_backend_name() == "sqlite"

    @property
    def path(self) -> Path | None:
        """The file of a SQLite database."""
        return Path(self.url.database) if self.is_sqlite and self.url.database else None

    def where(self) -> str:
        """The database as a reader may be told it (never the password)."""
        if self.path is not None:
            return f"the file {self.path}"
        host = self.url.host or "localhost"
        port = f":{self.url.port}" if self.url.port else ""
        name = f" {self.url.database}" if self.url.database else ""
        return f"the PostgreSQL database{name} at {host}{port}"

    def async_engine(self) -> AsyncEngine:
        # NullPool: an async connection belongs to the event loop that opened it, and `scholar ask` runs a loop per
        # call; a pooled one would be handed to the next loop.
        if self.is_sqlite:
            return create_async_engine(self.url.set(drivername="sqlite+aiosqlite"), poolclass=NullPool,
                                       connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
        return create_async_engine(self.url, poolclass=NullPool)

    def sync_engine(self) -> Engine:
        if self.is_sqlite:
            return create_engine(self.url, poolclass=NullPool, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
        return create_engine(self.url, pool_pre_ping=True, pool_size=2, max_overflow=8)

    def error(self, exc: BaseException) -> StoreError:
        return StoreError(describe_failure(self, exc))

    @contextlib.contextmanager
    def translated(self) -> Iterator[None]:
        """Driver and SQL errors inside the block leave it as one StoreError sentence."""
        try:
            yield
        except StoreError:
            raise
        except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
            raise self.error(exc) from exc


def memory_database(settings: ScholarSettings) -> Database:
    if settings.database_url:
        return Database.from_url(settings.database_url, "conversation memory")
    return Database.sqlite(settings.resolved_memory_db, "conversation memory")


def chat_database(settings: ScholarSettings) -> Database:
    if settings.database_url:
        return Database.from_url(settings.database_url, "chat history")
    return Database.sqlite(settings.resolved_chat_db, "chat history")


def describe_failure(db: Database, exc: BaseException) -> str:
    """One line: which database, what is wrong with it, what to do."""
    cause = _driver_message(exc)
    low = cause.lower()
    what = f"The {db.purpose} ({db.where()})"
    if db.is_sqlite:
        if "not a database" in low or "malformed" in low or "disk image" in low:
            return (f"{what} is damaged or is not a database: move it aside (a new, empty one is made on the next "
                    "question) or restore it from a backup.")
        if "locked" in low or "busy" in low:
            return f"{what} is locked by another program: close that program (or wait for it) and try again."
        if "unable to open" in low or "readonly" in low or "read-only" in low or isinstance(exc, PermissionError):
            return (f"{what} cannot be opened for writing: check that its folder exists and that the server's user "
                    "may write there.")
    else:
        if "password authentication" in low or "authentication failed" in low:
            return f"{what} refused the login: check the user and password in SCHOLAR_DATABASE_URL."
        if "does not exist" in low and "database" in low:
            return f"{what} does not exist: create it (createdb) or correct SCHOLAR_DATABASE_URL."
        if "connect" in low or "server closed" in low or "terminating" in low:
            return (f"{what} cannot be reached: check that PostgreSQL is running and that SCHOLAR_DATABASE_URL is "
                    "right; then try again.")
    return f"{what} failed ({cause}): check the database and the server's log, then try again."


def _driver_message(exc: BaseException) -> str:
    """The driver's own first line, without SQLAlchemy's "[SQL: ...]" and "(Background on this error ...)"."""
    orig = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    first = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    return first.split("[SQL:")[0].strip()[:200] or type(orig).__name__


# ---- schema ---------------------------------------------------------------------------------------------------
_VERSIONS = ('CREATE TABLE IF NOT EXISTS scholar_schema ("component" TEXT PRIMARY KEY, "version" INTEGER NOT NULL)')


def migration_engine(db: Database) -> Engine:
    """An engine whose transactions lock the database for writing from their start, for `migrate` only."""
    if not db.is_sqlite:
        return create_engine(db.url, poolclass=NullPool)
    engine = create_engine(db.url, poolclass=NullPool, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})

    # pysqlite's own transaction handling would begin late (at the first write) and take no lock for reads; the
    # documented recipe: take over BEGIN, and make it IMMEDIATE.
    @event.listens_for(engine, "connect")
    def _no_implicit_begin(dbapi_connection, _record):
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin_immediate(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def migrate(db: Database, component: str, steps: Sequence[Step]) -> int:
    """Bring `component`'s tables to version len(steps) (step i makes version i + 1); returns how many steps ran.
    Safe to call from any number of processes and threads at once: the lock makes them take turns, and each
    step is recorded in the same transaction that applied it."""
    if db.path is not None:
        db.path.parent.mkdir(parents=True, exist_ok=True)
    engine = migration_engine(db)
    try:
        with db.translated(), engine.begin() as conn:
            if not db.is_sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
            conn.execute(text(_VERSIONS))
            row = conn.execute(text('SELECT "version" FROM scholar_schema WHERE "component" = :c'),
                               {"c": component}).first()
            done = int(row[0]) if row else 0
            for step in steps[done:]:
                if callable(step):
                    step(conn)
                else:
                    for statement in (s.strip() for s in step.split(";")):
                        if statement:
                            conn.execute(text(statement))
            if len(steps) > done:
                conn.execute(text('DELETE FROM scholar_schema WHERE "component" = :c'), {"c": component})
                conn.execute(text('INSERT INTO scholar_schema ("component", "version") VALUES (:c, :v)'),
                             {"c": component, "v": len(steps)})
                log.info("%s: %s schema from version %d to %d", db.where(), component, done, len(steps))
            return max(len(steps) - done, 0)
    finally:
        engine.dispose()


# ---- secrets every replica must share -------------------------------------------------------------------------
SECRETS_SCHEMA = ['CREATE TABLE IF NOT EXISTS scholar_secrets ("name" TEXT PRIMARY KEY, "value" TEXT NOT NULL)']


def shared_secret(db: Database, name: str) -> str:
    """A random secret kept in the database under `name`, made by whichever replica asks first: the replicas sign
    and check logins and issued session IDs alike."""
    migrate(db, "secrets", SECRETS_SCHEMA)
    engine = db.sync_engine()
    try:
        with db.translated(), engine.begin() as conn:
            conn.execute(text('INSERT INTO scholar_secrets ("name", "value") VALUES (:n, :v) '
                              'ON CONFLICT ("name") DO NOTHING'), {"n": name, "v": secrets.token_hex(32)})
            return str(conn.execute(text('SELECT "value" FROM scholar_secrets WHERE "name" = :n'),
                                    {"n": name}).scalar_one())
    finally:
        engine.dispose()
