# Maintainers: the watchdog that cuts off a request still running at its deadline.
#
# Owns: one daemon thread per Fetcher (started by its first request: a run from the cache
#       never starts it) that shuts the socket of any watched request past its due time: its
#       deadline (REQUEST_FACTOR read timeouts) plus 1/MIN_RATE s per body byte received so
#       far, never past the run's own deadline (DRIFT_AUDIT_DEADLINE). A per-read timeout
#       cannot stop a server that sends one byte a second; this does.
# Takes: a connection and its deadlines, from fetch.py (the one network client, whose part
# this is). Gives: `_Expired` with the reason, raised in the requesting thread.
"""The request watchdog: deadlines enforced by shutting sockets."""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import http.client
    import socket
    from collections.abc import Iterator

REQUEST_FACTOR = 10.0  # one request may take this many read timeouts in all
MIN_RATE = 64 * 1024  # bytes per second a big download is given time for, at least
DEADLINE_ENV = "DRIFT_AUDIT_DEADLINE"


class _Expired(Exception):
    """The watchdog cut a request off at its deadline (never retried: it would only wait
    again)."""


@dataclass(eq=False)  # kept in a set by identity
class _Watched:
    """One request the watchdog looks after: its deadline and what to shut."""

    deadline: float  # before any byte arrives
    hard: float  # the run's own deadline: never later than this
    conn: http.client.HTTPConnection
    sock: socket.socket | None = None
    received: int = 0  # body bytes so far (each buys 1/MIN_RATE s)
    fired: bool = False
    why: str = ""

    def due(self) -> float:
        return min(self.deadline + self.received / MIN_RATE, self.hard)

    def shut(self) -> None:
        import socket

        for sock in (self.sock, self.conn.sock):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class _Watchdog:
    """One thread that shuts the socket of any request still running at its deadline.

    A per-read timeout cannot stop a server that sends one byte a second; this does. It is
    started by the first request (a run from the cache never starts it)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: set[_Watched] = set()
        self._thread: threading.Thread | None = None
        self._stopped = False

    @contextlib.contextmanager
    def watch(
        self, conn: http.client.HTTPConnection, deadline: float, hard: float, run_limit: float
    ) -> Iterator[_Watched]:
        watched = _Watched(deadline, hard, conn)
        self._arm(watched)
        try:
            yield watched
        except Exception:
            if self._disarm(watched):
                raise _Expired(_expired_reason(watched, run_limit)) from None
            raise
        if self._disarm(watched):
            raise _Expired(_expired_reason(watched, run_limit))

    def _arm(self, watched: _Watched) -> None:
        with self._cond:
            self._armed.add(watched)
            if self._thread is None and not self._stopped:
                self._thread = threading.Thread(
                    target=self._run, name="drift-audit-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify()

    def _disarm(self, watched: _Watched) -> bool:
        """Forget a request; whether the watchdog had cut it off."""
        with self._cond:
            self._armed.discard(watched)
            return watched.fired

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                now = time.monotonic()
                for watched in [w for w in self._armed if w.due() <= now]:
                    self._armed.discard(watched)
                    watched.fired = True
                    watched.shut()
                upcoming = [w.due() for w in self._armed]
                self._cond.wait(max(min(upcoming) - now, 0.01) if upcoming else None)


def _expired_reason(watched: _Watched, run_limit: float) -> str:
    if watched.due() >= watched.hard:
        return (
            f"the run's network time limit ({DEADLINE_ENV}={run_limit:g} s) ran out during "
            "the request"
        )
    return (
        f"the request took longer than its deadline ({REQUEST_FACTOR:g} read timeouts, plus "
        f"time for what arrived at {MIN_RATE // 1024} KiB/s): the server is too slow or "
        "trickles its answer"
    )


def _shut(conn: http.client.HTTPConnection) -> None:
    _Watched(0.0, 0.0, conn).shut()
