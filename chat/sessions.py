"""Whose conversation a session is. The Scholar's memory is one SQLite file shared by the chat, the API and the CLI,
keyed by a session string; every front end builds that key here from its owner, so no interface and no owner can
name another's conversation:

- chat: the logged-in user and the Chainlit thread;
- API with keys: the key (hashed) and the client's session ID;
- API without keys: an ID the server issued (POST /api/sessions), signed so that it cannot be guessed or forged;
- CLI: the `--session` name, in a namespace of its own.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path

from chat.private import write_private

ISSUED_PREFIX = "s-"


def memory_key(interface: str, owner: str, session_id: str) -> str:
    # The owner is hashed to a fixed width, so `owner:session` can never be read two ways (names may hold ':').
    tag = hashlib.sha256(owner.encode("utf-8")).hexdigest()[:24]
    return f"{interface}:{tag}:{session_id}"


class SessionIssuer:
    """Unguessable session IDs for clients with no other identity: `s-<random>.<signature>`."""

    def __init__(self, secret: bytes):
        self._secret = secret

    def issue(self) -> str:
        token = ISSUED_PREFIX + secrets.token_urlsafe(18)
        return f"{token}.{self._sign(token)}"

    def valid(self, session_id: str) -> bool:
        token, _, signature = session_id.rpartition(".")
        return token.startswith(ISSUED_PREFIX) and hmac.compare_digest(signature.encode(), self._sign(token).encode())

    def _sign(self, token: str) -> str:
        return hmac.new(self._secret, token.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def load_secret(path: Path) -> bytes:
    """A per-installation secret kept in `path` (mode 0600 from its creation), so issued IDs survive a restart."""
    try:
        return bytes.fromhex(path.read_text(encoding="utf-8").strip())
    except (FileNotFoundError, ValueError):
        pass
    secret = secrets.token_bytes(32)
    write_private(path, secret.hex().encode("ascii"))
    return secret
