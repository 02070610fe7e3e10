"""The exceptions the client raises: one per problem code of API v2, each carrying the problem details."""

from __future__ import annotations

from typing import Any, Dict, Optional


class AnnostoreError(Exception):
    """A request the server refused, or that could not be made.

    ``status`` is the HTTP status (0 when no answer came), ``code`` the problem's code
    (``NOT_FOUND``, ``VALIDATION``...), ``problem`` the whole RFC 9457 body as the server sent it.
    """

    def __init__(self, message: str, status: int = 0, code: str = "", problem: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.problem: Dict[str, Any] = problem or {}

    @property
    def errors(self) -> list:
        """For a ``VALIDATION`` problem, where the request was wrong: ``[{pointer, detail, in}, ...]``."""
        return list(self.problem.get("errors", []))


class ValidationError(AnnostoreError):
    """400: the request breaks a rule; ``errors`` points at where."""


class Unauthorized(AnnostoreError):
    """401: no key, or an unknown or revoked one."""


class Forbidden(AnnostoreError):
    """403: the key's scope does not allow it."""


class NotFound(AnnostoreError):
    """404: no such resource for this team."""


class Conflict(AnnostoreError):
    """409: the state forbids it now (a duplicate name, a task still running)."""


class Gone(AnnostoreError):
    """410: it was there and has expired (an export's archive)."""


class PreconditionFailed(AnnostoreError):
    """412: ``If-Match`` named a version that is no longer current; ``problem['etag']`` is the current one."""


class RateLimited(AnnostoreError):
    """429 after the retries: ``retry_after`` seconds is when the server said to come back."""

    @property
    def retry_after(self) -> Optional[float]:
        value = self.problem.get("retryAfter")
        return float(value) if value is not None else None


class TaskFailed(AnnostoreError):
    """A task (import, export) ended ``error`` or ``stopped``; ``task`` is its last state."""

    def __init__(self, message: str, task: Dict[str, Any]):
        super().__init__(message, 0, str((task.get("meta") or {}).get("error", {}).get("code", task.get("status", ""))))
        self.task = task


_BY_STATUS = {
    400: ValidationError,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    412: PreconditionFailed,
    429: RateLimited,
}


def error_for(status: int, problem: Dict[str, Any], fallback: str) -> AnnostoreError:
    """The exception of an answer's status, with the problem's own words when it sent some."""
    detail = problem.get("detail") or problem.get("title") or fallback
    kind = _BY_STATUS.get(status, AnnostoreError)
    return kind(f"{status} {problem.get('code', '')}: {detail}".strip(), status, str(problem.get("code", "")), problem)
