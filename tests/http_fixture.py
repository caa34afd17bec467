"""The HTTP plumbing the local test indexes share: a threaded server on 127.0.0.1 and replies
that can be cut short (a truncated body is one of the injected faults)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional


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


@contextmanager
def running(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free loopback port; yields the index URL (``.../simple/``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/simple/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
