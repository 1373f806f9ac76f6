"""Who is chatting. Chainlit keeps history only for a logged-in user, so there is always one:

- `SCHOLAR_CHAT_USERS="name:password,..."` set: a password login page, checked here;
- otherwise a single local reader, logged in silently (header auth that accepts everyone) — the default for a
  chat on your own machine.

Either way Chainlit signs its session cookie with CHAINLIT_AUTH_SECRET; when that is not set, a random secret is
made once and kept beside the chat history (var/, gitignored), so logins survive a restart; with
SCHOLAR_DATABASE_URL it is kept in that database instead, so a login holds on every replica.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from chat.errors import ChatError
from chat.private import write_private

if TYPE_CHECKING:
    from chat.database import Database

LOCAL_READER = "reader"


class UsersSpecError(ChatError):
    """SCHOLAR_CHAT_USERS cannot be read; the chat refuses to start rather than run without the login asked for."""


def parse_users(spec: str) -> dict[str, str]:
    """`name:password,name2:password2` -> {name: password}; an empty spec is no login. Anything malformed raises:
    a half-read list would silently turn the login off or cut a password short."""
    users: dict[str, str] = {}
    if not spec.strip():
        return users
    for n, item in enumerate(spec.split(","), start=1):
        name, sep, password = item.strip().partition(":")
        name = name.strip()
        problem = ("is empty" if not item.strip() else
                   "has no ':' between name and password (passwords cannot contain ',')" if not sep else
                   "has no name" if not name else
                   "has an empty password" if not password else
                   f"repeats the user {name!r}" if name in users else None)
        if problem:
            raise UsersSpecError(f"SCHOLAR_CHAT_USERS: entry {n} {problem}; write it as name:password,name2:password2")
        users[name] = password
    return users


def check_password(users: dict[str, str], username: str, password: str) -> bool:
    expected = users.get(username)
    # Compare against a dummy for unknown names too, so timing does not reveal which names exist.
    return hmac.compare_digest((expected or "\0unknown").encode(), password.encode()) and expected is not None


def ensure_auth_secret(secret_file: Path, shared: Database | None = None) -> str:
    """The JWT secret Chainlit needs once any login is configured (environment first, then the `shared` database's
    when replicas share one, else the kept file)."""
    secret = os.environ.get("CHAINLIT_AUTH_SECRET")
    if secret:
        return secret
    if shared is not None:
        from chat.database import shared_secret

        secret = shared_secret(shared, "chainlit-auth")
    elif secret_file.exists():
        secret = secret_file.read_text(encoding="utf-8").strip()
    if not secret:
        secret = secrets.token_urlsafe(48)
        write_private(secret_file, secret.encode("utf-8"))  # 0600 from its creation, not chmod-ed after
    os.environ["CHAINLIT_AUTH_SECRET"] = secret  # read by chainlit.auth when it signs and checks tokens
    return secret
