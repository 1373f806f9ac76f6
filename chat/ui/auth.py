"""Who is chatting. Chainlit keeps history only for a logged-in user, so there is always one:

- `SCHOLAR_CHAT_USERS="name:password,..."` set: a password login page, checked here;
- otherwise a single local reader, logged in silently (header auth that accepts everyone) — the default for a
  chat on your own machine.

Either way Chainlit signs its session cookie with CHAINLIT_AUTH_SECRET; when that is not set, a random secret is
made once and kept beside the chat history (var/, gitignored), so logins survive a restart.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

LOCAL_READER = "reader"


def parse_users(spec: str) -> dict[str, str]:
    users: dict[str, str] = {}
    for item in spec.split(","):
        name, sep, password = item.strip().partition(":")
        if sep and name.strip() and password:
            users[name.strip()] = password
    return users


def check_password(users: dict[str, str], username: str, password: str) -> bool:
    expected = users.get(username)
    # Compare against a dummy for unknown names too, so timing does not reveal which names exist.
    return hmac.compare_digest((expected or "\0unknown").encode(), password.encode()) and expected is not None


def ensure_auth_secret(secret_file: Path) -> str:
    """The JWT secret Chainlit needs once any login is configured (environment first, then the kept file)."""
    secret = os.environ.get("CHAINLIT_AUTH_SECRET")
    if secret:
        return secret
    if secret_file.exists():
        secret = secret_file.read_text(encoding="utf-8").strip()
    if not secret:
        secret_file.parent.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_urlsafe(48)
        secret_file.write_text(secret, encoding="utf-8")
        secret_file.chmod(0o600)
    os.environ["CHAINLIT_AUTH_SECRET"] = secret  # read by chainlit.auth when it signs and checks tokens
    return secret
