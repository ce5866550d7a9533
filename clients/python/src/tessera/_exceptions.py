"""The exceptions the client raises: one base, one class per HTTP status family, and transport faults."""

from __future__ import annotations

import email.utils
import json
import time
from datetime import datetime, timezone
from typing import Any

import httpx

from ._models import BaseModel

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "FieldError",
    "InternalServerError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "TesseraError",
    "UnprocessableEntityError",
    "WebhookVerificationError",
]


class TesseraError(Exception):
    """The base of every exception this library raises."""


class WebhookVerificationError(TesseraError):
    """A webhook whose signature, timestamp or headers do not verify: do not trust its payload."""


class FieldError(BaseModel):
    """One field error of a problem: which parameter, a machine code, and what is wrong."""

    param: str
    code: str
    message: str


class APIError(TesseraError):
    """Any failed API call: a problem answer from the server, or no answer at all.

    ``status_code``, ``code`` (``invalid_request``, ``not_found``…), ``request_id``, ``errors`` (the
    problem's field errors), ``headers`` and ``body`` (the parsed problem, or the raw text) are set
    whenever the server answered.
    """

    message: str
    request: httpx.Request | None
    status_code: int | None
    code: str | None
    request_id: str | None
    errors: list[FieldError]
    headers: httpx.Headers
    body: object | None

    def __init__(
        self,
        message: str,
        *,
        request: httpx.Request | None = None,
        status_code: int | None = None,
        code: str | None = None,
        request_id: str | None = None,
        errors: list[FieldError] | None = None,
        headers: httpx.Headers | None = None,
        body: object | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.request = request
        self.status_code = status_code
        self.code = code
        self.request_id = request_id
        self.errors = errors or []
        self.headers = headers if headers is not None else httpx.Headers()
        self.body = body

    def __str__(self) -> str:
        return self.message


class APIStatusError(APIError):
    """The server answered with a 4xx or 5xx status: an RFC 9457 problem."""

    response: httpx.Response
    status_code: int

    def __init__(self, message: str, *, response: httpx.Response, body: object | None) -> None:
        problem = body if isinstance(body, dict) else {}
        raw_errors = problem.get("errors")
        errors = [FieldError(e) for e in raw_errors if isinstance(e, dict)] if isinstance(raw_errors, list) else []
        code = problem.get("code")
        request_id = problem.get("request_id") or response.headers.get("x-request-id")
        super().__init__(
            message,
            request=response.request,
            status_code=response.status_code,
            code=code if isinstance(code, str) else None,
            request_id=request_id if isinstance(request_id, str) else None,
            errors=errors,
            headers=response.headers,
            body=body,
        )
        self.response = response


class BadRequestError(APIStatusError):
    """400: a malformed request, a bad query parameter, a bad ``Idempotency-Key``."""


class AuthenticationError(APIStatusError):
    """401: no credential (``unauthenticated``), or a bad, expired or revoked one (``invalid_token``)."""


class PermissionDeniedError(APIStatusError):
    """403: the credential lacks a scope (``insufficient_scope``)."""


class NotFoundError(APIStatusError):
    """404: no such object in your organization, or no such route."""


class ConflictError(APIStatusError):
    """409: a unique value taken, a forbidden transition, an idempotency key still in flight."""


class UnprocessableEntityError(APIStatusError):
    """422: the body fails validation (each field in ``errors``), or an idempotency key was reused."""


class RateLimitError(APIStatusError):
    """429: over the credential's rate limit. ``retry_after`` (seconds) and ``reset_at`` say when to try again."""

    retry_after: float | None
    reset_at: datetime | None

    def __init__(self, message: str, *, response: httpx.Response, body: object | None) -> None:
        super().__init__(message, response=response, body=body)
        self.retry_after = retry_after_seconds(response.headers)
        reset = response.headers.get("x-ratelimit-reset")
        try:
            self.reset_at = datetime.fromtimestamp(int(reset), tz=timezone.utc) if reset else None
        except (ValueError, OverflowError, OSError):
            self.reset_at = None


class InternalServerError(APIStatusError):
    """5xx: the server's fault (or a function's: ``function_failed``, ``function_timeout``…)."""


class APIConnectionError(APIError):
    """No answer: the connection failed or broke before the response was complete."""

    def __init__(self, message: str = "Connection error.", *, request: httpx.Request | None = None) -> None:
        super().__init__(message, request=request)


class APITimeoutError(APIConnectionError):
    """No answer within the timeout."""

    def __init__(self, *, request: httpx.Request | None = None) -> None:
        super().__init__("Request timed out.", request=request)


_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def status_error(response: httpx.Response) -> APIStatusError:
    """The exception for an error response (its body already read)."""
    body: Any
    try:
        body = json.loads(response.content) if response.content else None
    except ValueError:
        body = response.text or None
    detail: str | None = None
    code: str | None = None
    request_id = response.headers.get("x-request-id")
    if isinstance(body, dict):
        detail = body.get("detail") if isinstance(body.get("detail"), str) else None
        detail = detail or (body.get("title") if isinstance(body.get("title"), str) else None)
        # OAuth endpoints answer RFC 6749 errors: {"error", "error_description"}.
        if detail is None and isinstance(body.get("error_description"), str):
            detail = body["error_description"]
        code = body.get("code") if isinstance(body.get("code"), str) else None
        code = code or (body.get("error") if isinstance(body.get("error"), str) else None)
        request_id = body.get("request_id") if isinstance(body.get("request_id"), str) else request_id
    elif isinstance(body, str):
        detail = body[:500]
    message = f"{response.status_code}"
    if code:
        message += f" {code}"
    message += f": {detail or response.reason_phrase or 'error'}"
    if request_id:
        message += f" (request {request_id})"
    status = response.status_code
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else APIStatusError)
    return cls(message, response=response, body=body)


def retry_after_seconds(headers: httpx.Headers) -> float | None:
    """``retry-after-ms``, else ``Retry-After`` in seconds or as an HTTP date."""
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - time.time())
