"""HTTP access to a PEP 691 simple index: project pages and per-wheel core metadata.

Only the refresh tool imports this module (it imports httpx). Every failure is
raised as :class:`tfenv.errors.IndexUnreachable` naming the URL and what failed.

Core metadata of a wheel is read in this order:

1. the PEP 658 file ``<wheel url>.metadata`` when the project page advertises it
   (``core-metadata`` or the older ``data-dist-info-metadata`` key), checked
   against the advertised sha256;
2. otherwise, or when that file answers 404 (some mirrors and proxies advertise
   nothing or do not serve it), the ``*.dist-info/METADATA`` member read from the
   wheel itself with HTTP range requests (see ``wheel_zip``), checked against
   the zip CRC. Only a few kilobytes of the wheel are transferred.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Optional, TypeVar

import httpx

from tfenv.errors import IndexUnreachable, UsageError
from tfenv.i18n import _, ngettext
from tfenv.refresh import wheel_zip
from tfenv.structured import StructureError, load_json

__all__ = ["SIMPLE_JSON", "IndexFile", "SimpleIndex"]

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"

_RETRY_STATUS = frozenset({500, 502, 503, 504})
_T = TypeVar("_T")


class _Retryable(Exception):
    """A failure worth another try (5xx, connection error, truncated body)."""


class _NotFound(Exception):
    pass


@dataclass(frozen=True)
class IndexFile:
    """One file of a project page, as PEP 691 lists it (URL already absolute)."""

    filename: str
    url: str
    size: Optional[int]
    upload_time: Optional[str]
    requires_python: Optional[str]
    yanked: bool
    yanked_reason: Optional[str]
    metadata_sha256: Optional[str]  # None: not advertised; "": advertised without a hash


class SimpleIndex:
    """Reads project pages and wheel metadata from one index through ``client``."""

    def __init__(
        self,
        client: httpx.Client,
        index_url: str,
        *,
        attempts: int = 3,
        backoff_s: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._client = client
        self.index_url = index_url.rstrip("/") + "/"
        self._attempts = max(1, attempts)
        self._backoff_s = backoff_s
        self._sleep = sleep

    # -- project pages ----------------------------------------------------
    def project_url(self, name: str) -> str:
        return f"{self.index_url}{name}/"

    def project(self, name: str) -> Optional[list[IndexFile]]:
        """The files of project ``name``, or None when the index answers 404."""
        url = self.project_url(name)

        def parse(resp: httpx.Response) -> list[IndexFile]:
            ctype = resp.headers.get("content-type", "").split(";")[0].strip()
            if ctype != SIMPLE_JSON:
                raise IndexUnreachable(
                    _(
                        "The package index at {url} answered with content type {ctype!r} "
                        "instead of the PEP 691 JSON form ({form}); tfenv refresh needs an "
                        "index that serves PEP 691 JSON."
                    ).format(url=url, ctype=ctype, form=SIMPLE_JSON)
                )
            try:
                page = load_json(resp.content.decode("utf-8"))
            except (StructureError, UnicodeDecodeError) as exc:
                raise _Retryable(_("the body is not valid JSON ({why})").format(why=exc)) from None
            return _parse_page(page, str(resp.url), url)

        try:
            return self._get(url, {"Accept": SIMPLE_JSON}, parse, _("the project page"))
        except _NotFound:
            return None

    # -- metadata ---------------------------------------------------------
    def metadata(self, file: IndexFile) -> bytes:
        """The core metadata (METADATA file bytes) of one wheel."""
        if file.metadata_sha256 is not None:
            try:
                return self._pep658(file)
            except _NotFound:
                pass  # documented fallback: read the wheel itself
        return self._from_wheel(file)

    def _pep658(self, file: IndexFile) -> bytes:
        url = file.url + ".metadata"
        want = file.metadata_sha256

        def check(resp: httpx.Response) -> bytes:
            body = resp.content
            if want and hashlib.sha256(body).hexdigest() != want.lower():
                raise _Retryable(_("the body does not match the advertised sha256 (truncated?)"))
            return body

        return self._get(url, {}, check, _("the wheel's core metadata (PEP 658)"))

    def files(self, file: IndexFile, names: tuple[str, ...]) -> dict[str, bytes]:
        """The members ``names`` of one wheel (absent ones left out), by range requests."""
        fetch, tail = self._ranges(file)
        try:
            return wheel_zip.read_files(tail, fetch, names)
        except (_NotFound, wheel_zip.ZipProblem) as exc:
            why = "HTTP 404" if isinstance(exc, _NotFound) else str(exc)
            raise IndexUnreachable(
                _(
                    "Reading files of the wheel {url} with HTTP range requests failed: {why}."
                ).format(url=file.url, why=why)
            ) from None

    def _ranges(
        self, file: IndexFile
    ) -> tuple[Callable[[int, int], bytes], Callable[[int], tuple[int, bytes]]]:
        def fetch(start: int, length: int) -> bytes:
            end = start + length - 1
            return self._get(
                file.url,
                {"Range": f"bytes={start}-{end}"},
                lambda r: _range_body(r, start, length),
                _("bytes {start}-{end} of the wheel").format(start=start, end=end),
            )

        def tail(length: int) -> tuple[int, bytes]:
            return self._get(
                file.url,
                {"Range": f"bytes=-{length}"},
                _tail_body,
                _("the last {length} bytes of the wheel").format(length=length),
            )

        return fetch, tail

    def _from_wheel(self, file: IndexFile) -> bytes:
        fetch, tail = self._ranges(file)
        try:
            return wheel_zip.read_metadata(tail, fetch)
        except _NotFound:
            raise IndexUnreachable(
                _(
                    "Reading the METADATA of the wheel {url} failed: the wheel answered HTTP 404 "
                    "(and the index serves no PEP 658 metadata file for it)."
                ).format(url=file.url)
            ) from None
        except wheel_zip.ZipProblem as exc:
            raise IndexUnreachable(
                _(
                    "Reading the METADATA of the wheel {url} with HTTP range requests failed: "
                    "{why}. The index advertises no PEP 658 metadata file for it."
                ).format(url=file.url, why=exc)
            ) from None

    # -- one GET with retries ---------------------------------------------
    def _get(
        self,
        url: str,
        headers: Mapping[str, str],
        parse: Callable[[httpx.Response], _T],
        what: str,
    ) -> _T:
        problem = ""
        for attempt in range(self._attempts):
            if attempt:
                self._sleep(self._backoff_s * (2 ** (attempt - 1)))
            try:
                resp = self._client.get(url, headers=dict(headers))
                if resp.status_code == 404:
                    raise _NotFound
                if resp.status_code in _RETRY_STATUS:
                    raise _Retryable(_("HTTP status {status}").format(status=resp.status_code))
                if resp.status_code >= 400:
                    raise IndexUnreachable(
                        _(
                            "Reading {what} from the package index failed: {url} answered "
                            "HTTP {status}."
                        ).format(what=what, url=url, status=resp.status_code)
                    )
                return parse(resp)
            except httpx.TooManyRedirects:
                raise UsageError(
                    _(
                        "Reading {what} from the package index failed: {url} redirects in a "
                        "loop (more than {count} redirects)."
                    ).format(what=what, url=url, count=self._client.max_redirects),
                    hint=_(
                        "Check the index URL (--index-url, TFENV_INDEX_URL or pip's configuration)."
                    ),
                ) from None
            except httpx.TimeoutException:
                problem = _("no answer within the timeout ({timeout})").format(
                    timeout=_timeout_of(self._client)
                )
            except (httpx.TransportError, httpx.DecodingError) as exc:
                problem = _("a connection or transfer error ({kind}: {why})").format(
                    kind=type(exc).__name__, why=exc
                )
            except _Retryable as exc:
                problem = str(exc)
        raise IndexUnreachable(
            ngettext(
                "Reading {what} from the package index failed after {count} attempt: "
                "{url}: {problem}.",
                "Reading {what} from the package index failed after {count} attempts: "
                "{url}: {problem}.",
                self._attempts,
            ).format(what=what, count=self._attempts, url=url, problem=problem)
        )


def _timeout_of(client: httpx.Client) -> str:
    read = client.timeout.read
    return _("none") if read is None else f"{read:g} s"


def _range_body(resp: httpx.Response, start: int, length: int) -> bytes:
    body = resp.content
    if resp.status_code == 206:
        if len(body) != length:
            raise _Retryable(
                _("got {got} of {length} requested bytes (truncated body)").format(
                    got=len(body), length=length
                )
            )
        return body
    # a server that ignores Range sends the whole file
    part = body[start : start + length]
    if len(part) != length:
        raise _Retryable(
            _("got {got} of {length} requested bytes (truncated body)").format(
                got=len(part), length=length
            )
        )
    return part


def _truncated(got: int, wanted: int) -> str:
    return _("got {got} of {wanted} requested bytes (truncated body)").format(
        got=got, wanted=wanted
    )


def _tail_body(resp: httpx.Response) -> tuple[int, bytes]:
    """(offset of the first byte, bytes) of a suffix range answer."""
    body = resp.content
    if resp.status_code != 206:
        return 0, body
    crange = resp.headers.get("content-range", "")
    try:
        span, total = crange.split(" ", 1)[1].split("/")
        first, last = (int(x) for x in span.split("-"))
        int(total)
    except (IndexError, ValueError):
        raise _Retryable(_("bad Content-Range header {header!r}").format(header=crange)) from None
    if len(body) != last - first + 1:
        raise _Retryable(
            _("got {got} of {length} bytes (truncated body)").format(
                got=len(body), length=last - first + 1
            )
        )
    return first, body


def _parse_page(page: Any, base: str, url: str) -> list[IndexFile]:
    def bad(problem: str) -> IndexUnreachable:
        return IndexUnreachable(
            _("The package index page {url} is not valid PEP 691 JSON: {problem}.").format(
                url=url, problem=problem
            )
        )

    if not isinstance(page, dict) or not isinstance(page.get("files"), list):
        raise bad(_("it has no 'files' list"))
    out: list[IndexFile] = []
    for raw in page["files"]:
        if not isinstance(raw, dict) or not isinstance(raw.get("filename"), str):
            raise bad(_("a file entry has no 'filename'"))
        if not isinstance(raw.get("url"), str):
            raise bad(_("the entry {name!r} has no 'url'").format(name=raw["filename"]))
        yanked = raw.get("yanked", False)
        meta = raw.get("core-metadata", raw.get("data-dist-info-metadata"))
        size = raw.get("size")
        upload = raw.get("upload-time")
        rp = raw.get("requires-python")
        out.append(
            IndexFile(
                filename=raw["filename"],
                url=str(httpx.URL(base).join(raw["url"]).copy_with(fragment=None)),
                size=size if isinstance(size, int) else None,
                upload_time=upload if isinstance(upload, str) else None,
                requires_python=rp if isinstance(rp, str) and rp.strip() else None,
                yanked=bool(yanked),
                yanked_reason=yanked if isinstance(yanked, str) and yanked else None,
                metadata_sha256=_meta_hash(meta),
            )
        )
    return out


def _meta_hash(meta: Any) -> Optional[str]:
    if meta is None or meta is False:
        return None
    if isinstance(meta, dict):
        value = meta.get("sha256")
        return value if isinstance(value, str) else ""
    return ""
