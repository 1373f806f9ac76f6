"""Chat history through Chainlit's SQLAlchemy data layer (a SQLite file, or the PostgreSQL database of
SCHOLAR_DATABASE_URL that replicas share: chat/database.py), and a local folder for its side elements.

Chainlit does not create the data layer's tables; `HistoryStore.ensure_schema` does (chat.database.migrate: once,
under a lock, versioned), with the columns Chainlit 2.12 writes (its documented schema plus `modes`,
`autoCollapse`, `icon`, `props`, `autoPlay`, `playerConfig`), as TEXT on both databases. Stored files and a SQLite
database are readable by their owner only (chat/private.py). Elements (the passage panels, trace files)
need a storage client to be persisted; `LocalFileStorage` keeps them under <chat_db folder>/files and
`mount_file_route` serves them back, to their thread's owner only, when a past chat is reopened.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.data.storage_clients.base import BaseStorageClient
from sqlalchemy import text

from chat.database import Database, chat_database, migrate
from chat.private import private_dir, private_file, write_private
from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

FILES_ROUTE = "/scholar-files"

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    "id" TEXT PRIMARY KEY, "identifier" TEXT NOT NULL UNIQUE, "metadata" TEXT NOT NULL, "createdAt" TEXT
);
CREATE TABLE IF NOT EXISTS threads (
    "id" TEXT PRIMARY KEY, "createdAt" TEXT, "name" TEXT, "userId" TEXT, "userIdentifier" TEXT, "tags" TEXT,
    "metadata" TEXT, FOREIGN KEY ("userId") REFERENCES users("id") ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS steps (
    "id" TEXT PRIMARY KEY, "name" TEXT NOT NULL, "type" TEXT NOT NULL, "threadId" TEXT NOT NULL, "parentId" TEXT,
    "streaming" BOOLEAN NOT NULL, "waitForAnswer" BOOLEAN, "isError" BOOLEAN, "metadata" TEXT, "tags" TEXT,
    "input" TEXT, "output" TEXT, "createdAt" TEXT, "command" TEXT, "modes" TEXT, "start" TEXT, "end" TEXT,
    "generation" TEXT, "showInput" TEXT, "language" TEXT, "indent" INT, "defaultOpen" BOOLEAN,
    "autoCollapse" BOOLEAN, "icon" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS elements (
    "id" TEXT PRIMARY KEY, "threadId" TEXT, "type" TEXT, "url" TEXT, "chainlitKey" TEXT, "name" TEXT NOT NULL,
    "display" TEXT, "objectKey" TEXT, "size" TEXT, "page" INT, "language" TEXT, "forId" TEXT, "mime" TEXT,
    "props" TEXT, "autoPlay" BOOLEAN, "playerConfig" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS feedbacks (
    "id" TEXT PRIMARY KEY, "forId" TEXT NOT NULL, "threadId" TEXT NOT NULL, "value" INT NOT NULL, "comment" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE
);
"""


# Logins that were logged out (chat/ui/logins.py); every replica must refuse them.
REVOKED_LOGINS = 'CREATE TABLE IF NOT EXISTS revoked_logins ("login" TEXT PRIMARY KEY, "until" DOUBLE PRECISION)'

# Version i + 1 of the history's schema is made by step i; a change is a new step at the end, never an edit.
HISTORY_SCHEMA = [SCHEMA, REVOKED_LOGINS]


class HistoryStore:
    """The chat history's database for this process: its schema, and one engine for the reads and writes made
    outside Chainlit's layer (the local reader's row, whose thread holds an element, revoked logins)."""

    def __init__(self, db: Database, files: Path):
        self.db = db
        self.files = files
        self.engine = db.sync_engine()

    @classmethod
    def from_settings(cls, settings: ScholarSettings) -> HistoryStore:
        return cls(chat_database(settings), settings.resolved_chat_db.parent / "files")

    @classmethod
    def sqlite(cls, path: Path) -> HistoryStore:
        return cls(Database.sqlite(path, "chat history"), path.parent / "files")

    def ensure_schema(self) -> None:
        if self.db.path is not None:
            with self.db.translated():
                private_file(self.db.path)  # readers' conversations: theirs (and the server's) only; WAL files too
                with contextlib.closing(sqlite3.connect(self.db.path)) as conn:  # not inside a transaction
                    conn.execute("PRAGMA journal_mode=WAL")
        migrate(self.db, "chat history", HISTORY_SCHEMA)

    def execute(self, sql: str, **params: Any) -> list[Any]:
        with self.db.translated(), self.engine.begin() as conn:
            result = conn.execute(text(sql), params)
            return list(result.fetchall()) if result.returns_rows else []

    def ensure_user(self, identifier: str) -> None:
        """Create a user row up front. Chainlit creates users on first login with get-then-insert, so many browser
        tabs logging in as the same local reader at once race on the UNIQUE identifier and all but one fail."""
        self.execute('INSERT INTO users ("id", "identifier", "metadata", "createdAt") VALUES (:id, :identifier, '
                     ':metadata, :created) ON CONFLICT ("identifier") DO NOTHING', id=str(uuid.uuid4()),
                     identifier=identifier, metadata="{}", created=datetime.now(UTC).isoformat())

    def element_owner(self, url: str) -> str | None:
        """The user whose thread holds the element stored at `url`. The owner named in the url is not proof:
        Chainlit names it from the thread's user at the moment the element is stored, and a first answer's panels
        can be stored before Chainlit has written that user onto its new thread (the url then says "unknown")."""
        rows = self.execute('SELECT t."userId" FROM elements e JOIN threads t ON t."id" = e."threadId" '
                            'WHERE e."url" = :url', url=url)
        return rows[0][0] if rows else None

    def async_url(self) -> str:
        url = self.db.url.set(drivername="sqlite+aiosqlite") if self.db.is_sqlite else self.db.url
        return url.render_as_string(hide_password=False)


class LocalFileStorage(BaseStorageClient):
    """Element payloads as files named by a hash of their object key (keys hold user text: never a path)."""

    def __init__(self, root: Path):
        self.root = private_dir(Path(root))

    def _path(self, object_key: str) -> Path:
        return self.root / hashlib.sha256(object_key.encode("utf-8")).hexdigest()

    @staticmethod
    def owner(object_key: str) -> str:
        return object_key.split("/", 1)[0]

    async def upload_file(self, object_key: str, data: bytes | str, mime: str = "application/octet-stream",
                          overwrite: bool = True, content_disposition: str | None = None) -> dict[str, Any]:
        path = self._path(object_key)
        if path.exists() and not overwrite:
            return {"object_key": object_key, "url": await self.get_read_url(object_key)}
        payload = data.encode("utf-8") if isinstance(data, str) else data
        write_private(path, payload)
        write_private(path.with_suffix(".mime"), mime.encode("utf-8"))
        return {"object_key": object_key, "url": await self.get_read_url(object_key)}

    async def delete_file(self, object_key: str) -> bool:
        path = self._path(object_key)
        for p in (path, path.with_suffix(".mime")):
            p.unlink(missing_ok=True)
        return True

    async def get_read_url(self, object_key: str) -> str:
        digest = self._path(object_key).name
        return f"{FILES_ROUTE}/{quote(self.owner(object_key), safe='')}/{digest}"

    def read(self, owner: str, digest: str) -> tuple[bytes, str] | None:
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            return None
        path = self.root / digest
        if not path.is_file():
            return None
        mime_path = path.with_suffix(".mime")
        mime = mime_path.read_text(encoding="utf-8") if mime_path.exists() else "application/octet-stream"
        return path.read_bytes(), mime

    async def close(self) -> None:
        return None


class HistoryDataLayer(SQLAlchemyDataLayer):
    """Chainlit's layer binds some values (step `modes`, `tags`) as Python dicts/lists, which the TEXT columns of
    our schema refuse on SQLite (and PostgreSQL would need arrays for); encode them as JSON text so such a step
    is stored instead of silently dropped."""

    async def execute_sql(self, query: str, parameters: dict):
        encoded = {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in parameters.items()}
        if "INSERT INTO steps" in query and "DO UPDATE" in query:
            query = merge_step_metadata(query, self.engine.dialect.name)
        result = await super().execute_sql(query, encoded)
        if isinstance(result, list):
            # An element without props is stored with props NULL, and get_element then json.loads(None): a 500 for
            # the thread's own user reopening a panel. Read NULL as no props.
            for row in result:
                if isinstance(row, dict) and "props" in row and row["props"] is None:
                    row["props"] = "{}"
        return result


def merge_step_metadata(query: str, dialect: str) -> str:
    """A step's stored metadata is merged with what a later write brings, not replaced by it. Chainlit persists a
    message's send and its later updates in tasks of their own, which can finish out of order: the answer's send
    (status, timings) would otherwise overwrite the follow-ups and trace its update stored a moment later."""
    old = 'COALESCE(NULLIF(steps."metadata", \'\'), \'{}\')'
    merged = (f"json_patch({old}, :metadata)" if dialect == "sqlite" else
              f"CAST(CAST({old} AS jsonb) || CAST(:metadata AS jsonb) AS text)")
    insert, marker, updates = query.partition("DO UPDATE")
    return insert + marker + updates.replace('"metadata" = :metadata', f'"metadata" = {merged}')


def build_data_layer(store: HistoryStore) -> tuple[SQLAlchemyDataLayer, LocalFileStorage]:
    store.ensure_schema()
    storage = LocalFileStorage(store.files)
    layer = HistoryDataLayer(store.async_url(), storage_provider=storage)
    return layer, storage


def mount_file_route(app, storage: LocalFileStorage, store: HistoryStore) -> None:
    """Serve stored elements to the user whose thread holds them, from the first place in the route table: Chainlit
    includes its routes as one router that ends in a catch-all UI route, which would otherwise answer these paths
    with the UI page. A second call (Chainlit reloading the app) replaces the first route."""
    from chainlit.auth import get_current_user
    from fastapi import Depends, HTTPException, Response

    def serve_element(owner: str, digest: str, user=Depends(get_current_user)) -> Response:
        url = f"{FILES_ROUTE}/{quote(owner, safe='')}/{digest}"
        user_id = getattr(user, "id", None)
        if user_id is None or store.element_owner(url) != user_id:
            raise HTTPException(status_code=404, detail="Not found")
        found = storage.read(owner, digest)
        if found is None:
            raise HTTPException(status_code=404, detail="Not found")
        data, mime = found
        # Served as inert text/JSON; never as HTML, whatever the stored mime says.
        safe_mime = mime if mime in ("text/plain", "application/json") else "application/octet-stream"
        return Response(content=data, media_type=safe_mime, headers={"X-Content-Type-Options": "nosniff"})

    path = FILES_ROUTE + "/{owner}/{digest}"
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) != path]
    app.add_api_route(path, serve_element, methods=["GET"])
    app.router.routes.insert(0, app.router.routes.pop())
