"""A read timeout for `scholar serve`: uvicorn waits forever for a request's headers and body, so a client sending
them a byte at a time holds a connection (and, with many, the server) for as long as it likes."""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class ReadTimeoutH11Protocol(H11Protocol):
    """Closes a connection whose request (headers and body) has not fully arrived `read_timeout_s` after it began
    to be awaited: on connect and after each response."""

    read_timeout_s = 15.0
    _read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the whole request is in: what follows is the app's time, not the client's

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection gets the same bound

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._read_timer = self.loop.call_later(self.read_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _too_slow(self) -> None:
        self._read_timer = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.logger.info("closing a connection whose request did not arrive within %gs", self.read_timeout_s)
            self.transport.close()


def protocol_with_timeout(seconds: float) -> type[ReadTimeoutH11Protocol]:
    return type("ReadTimeoutH11Protocol", (ReadTimeoutH11Protocol,), {"read_timeout_s": seconds})
