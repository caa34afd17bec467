"""The HTTP plumbing the local test indexes share: a threaded server on 127.0.0.1 and replies
that can be cut short (a truncated body is one of the injected faults)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional


def send_body(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    ctype: str,
    *,
    truncate: bool = False,
    headers: Optional[dict[str, str]] = None,
) -> None:
    """Reply with ``body``; ``truncate`` sends half of it and closes the connection."""
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    if truncate:
        handler.send_header("Connection", "close")
    handler.end_headers()
    if truncate:
        handler.wfile.write(body[: len(body) // 2])
        handler.wfile.flush()
        handler.close_connection = True
        return
    handler.wfile.write(body)


class _Server(ThreadingHTTPServer):
    """A client that hangs up (tfenv's own timeout, an injected fault) is expected, not an
    error: socketserver would print its traceback to the test's captured stderr."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


@contextmanager
def running(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free loopback port; yields the index URL (``.../simple/``)."""
    httpd = _Server(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/simple/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


class FaultLog:
    """Mixin for a test index's state: logs requests and hands out injected faults.

    ``faults`` maps a path to the actions for its next requests: ``"hang"``, an HTTP
    status such as ``"500"``, or ``"truncate"``.
    """

    faults: dict[str, list[str]]
    requests: list[str]
    hang_s: float
    _lock: threading.Lock

    def next_fault(self, path: str) -> Optional[str]:
        with self._lock:
            self.requests.append(path)
            actions = self.faults.get(path)
            return actions.pop(0) if actions else None


class FaultyHandler(BaseHTTPRequestHandler):
    """A handler that applies the injected faults, then serves what ``resolve`` finds."""

    protocol_version = "HTTP/1.1"
    state: FaultLog

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        fault = self.state.next_fault(path)
        if fault == "hang":
            time.sleep(self.state.hang_s)
        if fault is not None and fault.isdigit():
            send_body(self, int(fault), b"", "text/plain")
            return
        found = self.resolve(path)
        if found is None:
            send_body(self, 404, b"", "text/plain")
            return
        self.reply(path, found[0], found[1], truncate=fault == "truncate")

    def resolve(self, path: str) -> Optional[tuple[bytes, str]]:
        """(body, content type) for ``path``, or None for a 404."""
        return None

    def reply(self, path: str, body: bytes, ctype: str, *, truncate: bool) -> None:
        send_body(self, 200, body, ctype, truncate=truncate)
