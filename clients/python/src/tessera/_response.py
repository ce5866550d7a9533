"""What a call answers besides a model: the raw response (``with_raw_response``) and a function's response."""

from __future__ import annotations

import contextvars
import functools
import json
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar, cast

import httpx

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from typing_extensions import ParamSpec

    _P = ParamSpec("_P")

__all__ = ["APIResponse", "FunctionResponse"]

_T = TypeVar("_T")
_R = TypeVar("_R")

# Set while a ``with_raw_response`` method runs: the request answers an APIResponse, parsed on demand.
RAW_RESPONSE: contextvars.ContextVar[bool] = contextvars.ContextVar("tessera_raw_response", default=False)


class APIResponse(Generic[_T]):
    """The HTTP response of a call, before parsing: ``status_code``, ``headers``, then ``parse()``.

    >>> response = client.invoices.with_raw_response.list(status="overdue")
    >>> response.headers["x-ratelimit-remaining"]
    >>> page = response.parse()
    """

    def __init__(self, response: httpx.Response, parse: Callable[[], _T]) -> None:
        self.http_response = response
        self._parse = parse
        self._parsed: list[_T] = []

    @property
    def status_code(self) -> int:
        return self.http_response.status_code

    @property
    def headers(self) -> httpx.Headers:
        return self.http_response.headers

    @property
    def request_id(self) -> str | None:
        value = self.http_response.headers.get("x-request-id")
        return value if isinstance(value, str) else None

    @property
    def url(self) -> httpx.URL:
        return self.http_response.url

    @property
    def method(self) -> str:
        return self.http_response.request.method

    @property
    def content(self) -> bytes:
        """The body (not available for a streamed response until it has been read)."""
        return self.http_response.content

    @property
    def text(self) -> str:
        return self.http_response.text

    def json(self) -> Any:
        return self.http_response.json()

    def parse(self) -> _T:
        """The object the method returns without ``with_raw_response`` (parsed once)."""
        if not self._parsed:
            self._parsed.append(self._parse())
        return self._parsed[0]

    def __repr__(self) -> str:
        return f"<APIResponse [{self.status_code}] {self.method} {self.url.path}>"


class FunctionResponse:
    """What an edge function answered: its own status, headers and body (``functions.invoke``)."""

    def __init__(self, response: httpx.Response) -> None:
        self.http_response = response

    @property
    def status_code(self) -> int:
        return self.http_response.status_code

    @property
    def ok(self) -> bool:
        return self.http_response.is_success

    @property
    def headers(self) -> httpx.Headers:
        return self.http_response.headers

    @property
    def content(self) -> bytes:
        return self.http_response.content

    @property
    def text(self) -> str:
        return self.http_response.text

    @property
    def request_id(self) -> str | None:
        value = self.http_response.headers.get("x-request-id")
        return value if isinstance(value, str) else None

    def json(self) -> Any:
        return json.loads(self.http_response.content)

    def __repr__(self) -> str:
        return f"<FunctionResponse [{self.status_code}]>"


def to_raw_response_wrapper(func: Callable[_P, _R]) -> Callable[_P, APIResponse[_R]]:
    """The method, answering its APIResponse instead of the parsed object."""

    @functools.wraps(func)
    def wrapped(*args: _P.args, **kwargs: _P.kwargs) -> APIResponse[_R]:
        token = RAW_RESPONSE.set(True)
        try:
            return cast("APIResponse[_R]", func(*args, **kwargs))
        finally:
            RAW_RESPONSE.reset(token)

    return wrapped


def async_to_raw_response_wrapper(
    func: Callable[_P, Awaitable[_R]],
) -> Callable[_P, Awaitable[APIResponse[_R]]]:
    """The async method, answering its APIResponse instead of the parsed object."""

    @functools.wraps(func)
    async def wrapped(*args: _P.args, **kwargs: _P.kwargs) -> APIResponse[_R]:
        token = RAW_RESPONSE.set(True)
        try:
            return cast("APIResponse[_R]", await func(*args, **kwargs))
        finally:
            RAW_RESPONSE.reset(token)

    return wrapped
