"""Which of Chainlit's signed login tokens still count, and how often a wrong password may be tried.

Chainlit's token (a JWT in a cookie, valid for 15 days) only proves that the server signed it once. Each login here
stamps the token's user metadata with a credential tag (an HMAC of the name and current password, so removing the
user or changing the password voids it) and a login ID, which logout revokes (kept in the chat history's database,
so neither a restart nor another replica brings it back). Every request and websocket that Chainlit authenticates goes
through `LoginGuard.check`, installed around Chainlit's own `decode_jwt`.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from typing import TYPE_CHECKING, Any

import jwt

from chat.api.security import SlidingWindowLimiter
from chat.database import StoreError
from chat.ui.auth import check_password

if TYPE_CHECKING:
    from chat.ui.history import HistoryStore

log = logging.getLogger(__name__)

FAILED_LOGINS_PER_MINUTE = 5  # per user name; and ten times that for all names together


class RevokedLoginError(jwt.InvalidTokenError):
    """A token that was signed by this server but no longer counts (removed user, new password, logged out). An
    InvalidTokenError because that is what Chainlit's routes catch to answer 401 (/auth/jwt let anything else
    through as a 500)."""


class LoginGuard:
    def __init__(self, users: dict[str, str] | None, local_reader: str, secret: str, store: HistoryStore,
                 clock=time.time):
        self.users = users or {}  # empty: the single local reader
        self.local_reader = local_reader
        self._secret = secret.encode("utf-8")
        self._store = store  # its schema (revoked_logins) is made by build_data_layer
        self._clock = clock
        self._lock = threading.Lock()
        self.failures = SlidingWindowLimiter(FAILED_LOGINS_PER_MINUTE)
        self.all_failures = SlidingWindowLimiter(FAILED_LOGINS_PER_MINUTE * 10)

    # ---- issuing -----------------------------------------------------------------------------------------------
    def credential(self, name: str) -> str:
        password = self.users.get(name, "") if self.users else ""
        message = f"{name}\0{password}\0{'users' if self.users else 'local'}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:32]

    def stamp(self, metadata: dict[str, Any], name: str) -> dict[str, Any]:
        return {**metadata, "credential": self.credential(name), "login": secrets.token_urlsafe(16)}

    def password_login(self, name: str, password: str) -> bool:
        """Whether this name and password may log in now. Failures are counted per name (and overall), and a name
        over its limit is refused even with the right password until the minute has passed, so guessing is slow."""
        if self.failures.peek(f"user:{name}") is not None or self.all_failures.peek("all") is not None:
            log.warning("login refused for %r: too many failed attempts in the last minute", name)
            return False
        ok = check_password(self.users, name, password)
        if not ok:
            self.failures.hit(f"user:{name}")
            self.all_failures.hit("all")
        return ok

    # ---- checking ----------------------------------------------------------------------------------------------
    def check(self, user) -> None:
        """Raises RevokedLoginError unless the token's user is a current user with their current password and a
        login that was not logged out."""
        name = user.identifier
        meta = user.metadata or {}
        if self.users and name not in self.users:
            raise RevokedLoginError(f"{name!r} is no longer a user")
        if not self.users and name != self.local_reader:
            raise RevokedLoginError(f"{name!r} logged in under another configuration")
        if not hmac.compare_digest(str(meta.get("credential", "")).encode(), self.credential(name).encode()):
            raise RevokedLoginError(f"the credentials of {name!r} changed since this login")
        try:
            revoked = self.revoked(str(meta.get("login", "")))
        except StoreError as exc:  # the database is down: a logged-out token must not pass meanwhile
            raise RevokedLoginError(f"logins cannot be checked now: {exc}") from exc
        if revoked:
            raise RevokedLoginError("this login was logged out")

    def revoke(self, login: str, until: float) -> None:
        if not login:
            return
        with self._lock:
            self._store.execute('INSERT INTO revoked_logins ("login", "until") VALUES (:login, :until) '
                                'ON CONFLICT ("login") DO UPDATE SET "until" = excluded."until"',
                                login=login, until=until)
            self._store.execute('DELETE FROM revoked_logins WHERE "until" < :now', now=self._clock())

    def revoked(self, login: str) -> bool:
        return bool(self._store.execute('SELECT 1 FROM revoked_logins WHERE "login" = :login', login=login))


def install(guard: LoginGuard) -> None:
    """Route Chainlit's token decoding (HTTP routes, the websocket, /auth/jwt) through `guard.check`; a second call
    (Chainlit reloading the app) replaces the guard rather than wrapping twice."""
    import chainlit.auth
    import chainlit.server

    original = getattr(chainlit.auth.decode_jwt, "__wrapped__", chainlit.auth.decode_jwt)

    def decode_jwt(token: str):
        user = original(token)
        guard.check(user)
        return user

    # mypy knows no __wrapped__ on a function; a second install (tests, reload) reads it above to wrap the original once
    decode_jwt.__wrapped__ = original  # type: ignore[attr-defined]
    chainlit.auth.decode_jwt = decode_jwt
    chainlit.server.decode_jwt = decode_jwt


def logout_handler(guard: LoginGuard):
    """Chainlit's on_logout callback: the logged-out token is revoked, not just its cookie cleared."""
    async def on_logout(request, response) -> dict:
        from chainlit.auth import get_token_from_cookies
        from chainlit.auth.jwt import get_jwt_secret

        token = get_token_from_cookies(dict(request.cookies))
        header = request.headers.get("Authorization", "")
        if not token and header.lower().startswith("bearer "):
            token = header[7:]
        if token:
            try:
                data = jwt.decode(token, get_jwt_secret() or "", algorithms=["HS256"])
                guard.revoke(str((data.get("metadata") or {}).get("login", "")), float(data.get("exp", 0)))
            except jwt.InvalidTokenError:
                pass  # nothing valid to revoke
        return {"success": True}

    return on_logout


def api_login(allowed_origins: list[str]):
    """The chat's login as the API mounted in it checks it (chat.api.security.ApiAuth): the user name of a request
    that carries a current login, as Chainlit's own routes accept it (the cookie, else `Authorization: Bearer`), and
    that comes from no foreign page. A cookie goes along with any request the browser makes to this host, so a
    cookie-carried login counts only with no Origin header or the chat's own (or an allowed) one."""
    allowed = {o.rstrip("/") for o in allowed_origins if o.strip() and o.strip() != "*"}

    def login(request) -> str | None:
        import chainlit.auth

        token = chainlit.auth.get_token_from_cookies(dict(request.cookies))
        if token:
            origin = request.headers.get("origin")
            own = f"{request.url.scheme}://{request.headers.get('host', '')}"
            if origin is not None and origin != own and origin not in allowed:
                log.warning("API request with the chat's login cookie from the foreign origin %r refused", origin)
                return None
        else:
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                return None
        try:
            user = chainlit.auth.decode_jwt(token.strip())  # the guarded decode (install): revoked logins fail
        except (jwt.InvalidTokenError, ValueError, TypeError):
            return None
        return user.identifier

    return login
