"""HTTP for the client with Python's standard library alone: JSON in and out, problem details turned
into exceptions, and the retries a well-behaved client owes the server (backoff, ``Retry-After``)."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple

from .errors import AnnostoreError, error_for

# Statuses worth sending again: the server was busy or restarting, or asked us to wait.
RETRIED_STATUSES = {429, 502, 503, 504}
# Methods safe to send twice; a POST is sent again only with an Idempotency-Key.
SAFE_METHODS = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"}


class Answer:
    """An answer read whole: status, headers (lower-case names) and body bytes."""

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None


class Transport:
    """Sends requests to one server with one key. ``retries`` bounds how often a request is sent again."""

    def __init__(self, url: str, key: str, timeout: float = 60.0, retries: int = 5, backoff: float = 0.5, max_wait: float = 60.0):
        self.base = url.rstrip("/")
        self.key = key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_wait = max_wait

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        if path.startswith("http://") or path.startswith("https://"):
            return path
        pairs = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
        return self.base + path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def open(self, method: str, path: str, *, query: Optional[Mapping[str, Any]] = None, body: Optional[bytes] = None,
             headers: Optional[Mapping[str, str]] = None, idempotency_key: Optional[str] = None):
        """Sends the request (again, when worth it) and answers the open response: the caller reads it."""
        all_headers = {"Authorization": f"Bearer {self.key}", "Accept": "application/json", "User-Agent": "annostore-python"}
        all_headers.update(headers or {})
        if idempotency_key:
            all_headers["Idempotency-Key"] = idempotency_key
        may_retry = method in SAFE_METHODS or idempotency_key is not None
        attempt = 0
        while True:
            request = urllib.request.Request(self.url(path, query), data=body, method=method, headers=all_headers)
            try:
                return urllib.request.urlopen(request, timeout=self.timeout)
            except urllib.error.HTTPError as failure:
                status = failure.code
                raw = failure.read()
                problem = _problem_of(raw)
                wait = _retry_after(failure.headers.get("Retry-After"))
                if status == 429 and wait is not None:
                    problem.setdefault("retryAfter", wait)
                if may_retry and status in RETRIED_STATUSES and attempt < self.retries:
                    time.sleep(self._delay(attempt, wait))
                    attempt += 1
                    continue
                raise error_for(status, problem, failure.reason or "request failed") from None
            except (urllib.error.URLError, ConnectionError, TimeoutError) as failure:
                if may_retry and attempt < self.retries:
                    time.sleep(self._delay(attempt, None))
                    attempt += 1
                    continue
                raise AnnostoreError(f"{method} {path}: {getattr(failure, 'reason', failure)}") from None

    def request(self, method: str, path: str, **kwargs: Any) -> Answer:
        with self.open(method, path, **kwargs) as response:
            return Answer(response.status, dict(response.headers.items()), response.read())

    def json(self, method: str, path: str, payload: Any = None, **kwargs: Any) -> Any:
        if payload is not None:
            kwargs["body"] = json.dumps(payload).encode("utf-8")
            kwargs["headers"] = {"Content-Type": "application/json", **(kwargs.get("headers") or {})}
        return self.request(method, path, **kwargs).json()

    def _delay(self, attempt: int, retry_after: Optional[float]) -> float:
        """The server's Retry-After when it gave one, else exponential backoff with jitter."""
        if retry_after is not None:
            return min(retry_after, self.max_wait)
        return min(self.backoff * (2 ** attempt) * (0.5 + random.random()), self.max_wait)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _problem_of(raw: bytes) -> Dict[str, Any]:
    try:
        body = json.loads(raw.decode("utf-8"))
        return body if isinstance(body, dict) else {}
    except (ValueError, UnicodeDecodeError):
        return {}


def _retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After as seconds; the HTTP-date form is read too."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def multipart(parts: Iterable[Tuple[str, Optional[str], bytes]]) -> Tuple[bytes, str]:
    """A multipart/form-data body of ``(name, filename or None, bytes)`` parts, and its content type."""
    boundary = "----annostore" + "".join(random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(32))
    chunks = []
    for name, filename, content in parts:
        disposition = f'form-data; name="{_quoted(name)}"'
        if filename is not None:
            disposition += f'; filename="{_quoted(filename)}"'
            head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\nContent-Type: application/octet-stream\r\n\r\n"
        else:
            head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n"
        chunks += [head.encode("utf-8"), content, b"\r\n"]
    chunks.append(f"--{boundary}--\r\n".encode("utf-8"))
    return b"".join(chunks), f"multipart/form-data; boundary={boundary}"


def _quoted(value: str) -> str:
    # As browsers quote a header parameter (WHATWG HTML, multipart/form-data encoding).
    return value.replace("\r", "%0D").replace("\n", "%0A").replace('"', "%22")
