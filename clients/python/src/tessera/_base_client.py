"""The HTTP core shared by every call: building requests, credentials, retries, errors, parsing."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Callable, TypeVar
from urllib.parse import quote

import httpx

from ._exceptions import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    TesseraError,
    retry_after_seconds,
    status_error,
)
from ._models import BaseModel
from ._response import RAW_RESPONSE, APIResponse, FunctionResponse
from ._types import NOT_GIVEN, Body, Headers, NotGiven, Query, Timeout
from ._version import __version__

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "AsyncAPIClient",
    "OAuthTokens",
    "Parser",
    "RequestOptions",
    "RequestSpec",
    "SyncAPIClient",
]

log = logging.getLogger("tessera")

DEFAULT_BASE_URL = "http://127.0.0.1:8787"
DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=10.0)
DEFAULT_MAX_RETRIES = 2
INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
# A Retry-After the client waits for as it is; a longer one falls back to the exponential backoff.
MAX_RETRY_AFTER = 60.0

_T = TypeVar("_T")
_M = TypeVar("_M", bound=BaseModel)
_C = TypeVar("_C", bound="_BaseClient")
_SC = TypeVar("_SC", bound="SyncAPIClient")
_AC = TypeVar("_AC", bound="AsyncAPIClient")

# Turns the response of a call into what the method returns: (response, the request, the client).
Parser = Callable[[httpx.Response, "RequestSpec", Any], _T]

# Tessera's own error codes (api/problem.ts): a function's answer carrying one is Tessera's, not the function's.
TESSERA_ERROR_CODES = frozenset(
    {
        "invalid_request",
        "validation_failed",
        "unauthenticated",
        "invalid_token",
        "insufficient_scope",
        "not_found",
        "method_not_allowed",
        "conflict",
        "invalid_state_transition",
        "precondition_failed",
        "idempotency_key_in_use",
        "idempotency_key_reused",
        "payload_too_large",
        "unsupported_media_type",
        "rate_limited",
        "internal",
        "unavailable",
        "disposed",
        "function_failed",
        "function_cpu_limit",
        "function_memory_limit",
        "function_timeout",
    }
)


@dataclass(frozen=True)
class RequestOptions:
    """What a single call may override: extra headers, query and body fields, timeout, retries, idempotency key."""

    extra_headers: Headers | None = None
    extra_query: Query | None = None
    extra_body: Body | None = None
    timeout: Timeout | NotGiven = NOT_GIVEN
    max_retries: int | NotGiven = NOT_GIVEN
    idempotency_key: str | NotGiven = NOT_GIVEN


@dataclass(frozen=True)
class RequestSpec:
    """One logical call, as sent on every attempt."""

    method: str
    path: str
    query: dict[str, object]
    options: RequestOptions
    body: object = NOT_GIVEN
    content: bytes | None = None
    headers: Mapping[str, str] | None = None
    stream: bool = False
    invoke: bool = False


class OAuthTokens(BaseModel):
    """What the token endpoint answered a refresh: the new access token and the new refresh token."""

    access_token: str
    refresh_token: str | None
    expires_in: int | None
    scope: str | None
    token_type: str


def path_param(value: object) -> str:
    """A value as one path segment, percent-encoded as encodeURIComponent does (``/`` included)."""
    text = str(value)
    if text in ("", ".", ".."):
        return text.replace(".", "%2E")
    return quote(text, safe="")


def _query_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, tuple, set, frozenset)):
        return ",".join(_query_value(item) for item in value)
    return str(value)


def _encode_query(query: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (key, _query_value(value))
        for key, value in query.items()
        if value is not None and not isinstance(value, NotGiven)
    )


def _json_default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return value.to_dict()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _encode_body(body: object, extra: Body | None) -> bytes | None:
    if isinstance(body, NotGiven) and extra is None:
        return None
    if isinstance(body, Mapping):
        body = {key: value for key, value in body.items() if not isinstance(value, NotGiven)}
        if extra:
            body = {**body, **extra}
    elif isinstance(body, NotGiven):
        body = dict(extra or {})
    return json.dumps(body, default=_json_default, ensure_ascii=False, separators=(",", ":")).encode()


def _is_tessera_problem(response: httpx.Response) -> bool:
    if not response.headers.get("content-type", "").startswith("application/problem+json"):
        return False
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("code") in TESSERA_ERROR_CODES


def _invalid_token(response: httpx.Response) -> bool:
    if 'error="invalid_token"' in response.headers.get("www-authenticate", ""):
        return True
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("code") == "invalid_token"


def _retry_delay(retries_done: int, headers: httpx.Headers | None) -> float:
    """How long to wait before the next attempt: the server's Retry-After, else jittered exponential backoff."""
    if headers is not None:
        after = retry_after_seconds(headers)
        if after is not None and 0 < after <= MAX_RETRY_AFTER:
            return after
    delay = min(INITIAL_RETRY_DELAY * 2.0**retries_done, MAX_RETRY_DELAY)
    return delay * (1 - 0.25 * random.random())


def _retryable_status(spec: RequestSpec, response: httpx.Response) -> bool:
    status = response.status_code
    if spec.invoke and spec.method in ("POST", "PATCH"):
        # A function's POST may have run: only Tessera's own 429 (it never ran) is safe to send again.
        return status == 429 and _is_tessera_problem(response)
    return status in (408, 429) or status >= 500


def _retryable_transport(spec: RequestSpec, error: Exception) -> bool:
    if spec.invoke and spec.method in ("POST", "PATCH"):
        return isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))
    return True


class _Credentials:
    """The bearer credential, shared by a client and its ``with_options`` copies; refreshed in one place."""

    def __init__(
        self,
        *,
        token: str | None,
        kind: str,
        refresh_token: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        on_tokens: Callable[[OAuthTokens], object] | None = None,
    ) -> None:
        self.token = token
        self.kind = kind
        self.refresh_token = refresh_token
        self.client_id = client_id
        self.client_secret = client_secret
        self.on_tokens = on_tokens
        self.lock = threading.Lock()
        self.async_lock: asyncio.Lock | None = None

    @property
    def can_refresh(self) -> bool:
        return self.refresh_token is not None and self.client_id is not None

    def token_request(self) -> tuple[dict[str, str], dict[str, str]]:
        """The form and headers of a refresh_token grant (client_secret_basic, or client_id for a public app)."""
        form = {"grant_type": "refresh_token", "refresh_token": self.refresh_token or ""}
        headers = {"Accept": "application/json"}
        if self.client_secret is not None:
            pair = f"{quote(self.client_id or '', safe='')}:{quote(self.client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        else:
            form["client_id"] = self.client_id or ""
        return form, headers

    def accept(self, response: httpx.Response) -> None:
        if response.status_code != 200:
            raise status_error(response)
        try:
            tokens = OAuthTokens(response.json())
        except ValueError as exc:
            raise APIError("the token endpoint answered something that is not JSON") from exc
        if not isinstance(tokens.to_dict().get("access_token"), str):
            raise APIError("the token endpoint answered no access_token")
        self.token = tokens.access_token
        # Refresh tokens rotate on every use: the old one is spent, keep the new one.
        if tokens.refresh_token:
            self.refresh_token = tokens.refresh_token
        if self.on_tokens is not None:
            self.on_tokens(tokens)


class _BaseClient:
    _credentials: _Credentials
    _owns_http: bool

    def __init__(
        self,
        *,
        api_key: str | None,
        access_token: str | None,
        refresh_token: str | None,
        client_id: str | None,
        client_secret: str | None,
        on_tokens: Callable[[OAuthTokens], object] | None,
        base_url: str | httpx.URL | None,
        timeout: Timeout | NotGiven,
        max_retries: int,
        default_headers: Mapping[str, str] | None,
    ) -> None:
        oauth = access_token is not None or refresh_token is not None
        if api_key is not None and oauth:
            raise TesseraError("pass either api_key or OAuth tokens (access_token, refresh_token), not both")
        if refresh_token is not None and not client_id:
            raise TesseraError("refreshing an access token needs client_id (and client_secret for a confidential app)")
        if oauth:
            self._credentials = _Credentials(
                token=access_token,
                kind="oauth",
                refresh_token=refresh_token,
                client_id=client_id,
                client_secret=client_secret,
                on_tokens=on_tokens,
            )
        else:
            key = api_key if api_key is not None else os.environ.get("TESSERA_API_KEY")
            if not key:
                raise TesseraError(
                    "no API key: pass api_key=... to the client or set the TESSERA_API_KEY environment "
                    "variable (or use access_token=... for an OAuth app)"
                )
            self._credentials = _Credentials(token=key, kind="api_key")
        url = str(base_url) if base_url is not None else os.environ.get("TESSERA_BASE_URL") or DEFAULT_BASE_URL
        if not url.startswith(("http://", "https://")):
            raise TesseraError(f"base_url must be an http:// or https:// URL, not {url!r}")
        self.base_url = url.rstrip("/")
        self.timeout: Timeout = DEFAULT_TIMEOUT if isinstance(timeout, NotGiven) else timeout
        if max_retries < 0:
            raise TesseraError("max_retries must be 0 or more")
        self.max_retries = max_retries
        self._custom_headers = dict(default_headers or {})

    @property
    def credential_kind(self) -> str:
        """``api_key`` or ``oauth``: which kind of bearer credential the client sends (never the value)."""
        return self._credentials.kind

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, credential={self._credentials.kind!r})"

    def _copy_with(
        self: _C,
        *,
        api_key: str | NotGiven,
        access_token: str | NotGiven,
        base_url: str | httpx.URL | NotGiven,
        timeout: Timeout | NotGiven,
        max_retries: int | NotGiven,
        default_headers: Mapping[str, str] | NotGiven,
    ) -> _C:
        new = copy.copy(self)
        new._owns_http = False  # the copy shares the connection pool; the original closes it
        if not isinstance(api_key, NotGiven):
            new._credentials = _Credentials(token=api_key, kind="api_key")
        elif not isinstance(access_token, NotGiven):
            new._credentials = _Credentials(token=access_token, kind="oauth")
        if not isinstance(base_url, NotGiven):
            new.base_url = str(base_url).rstrip("/")
        if not isinstance(timeout, NotGiven):
            new.timeout = timeout
        if not isinstance(max_retries, NotGiven):
            new.max_retries = max_retries
        if not isinstance(default_headers, NotGiven):
            new._custom_headers = {**self._custom_headers, **default_headers}
        new._init_resources()
        return new

    def _init_resources(self) -> None:
        """Makes the resource attributes (client.invoices…); the clients define it."""

    def _spec(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, object] | None,
        body: object,
        content: bytes | None,
        headers: Mapping[str, object] | None,
        options: RequestOptions | None,
        stream: bool,
        invoke: bool,
    ) -> RequestSpec:
        options = options or RequestOptions()
        query_out = {k: v for k, v in (query or {}).items() if v is not None and not isinstance(v, NotGiven)}
        headers_out = {k: str(v) for k, v in (headers or {}).items() if v is not None and not isinstance(v, NotGiven)}
        return RequestSpec(
            method=method.upper(),
            path=path,
            query=query_out,
            options=options,
            body=body,
            content=content,
            headers=headers_out,
            stream=stream,
            invoke=invoke,
        )

    def _prepare(self, spec: RequestSpec) -> tuple[str, httpx.QueryParams, dict[str, str], bytes | None]:
        """URL, query, headers and body, the same on every attempt (the idempotency key included)."""
        options = spec.options
        url = self.base_url + spec.path
        query = httpx.QueryParams(_encode_query({**spec.query, **(options.extra_query or {})}))
        headers: dict[str, str] = {
            "Accept": "text/event-stream" if spec.stream and not spec.invoke else "application/json",
            "User-Agent": f"tessera-python/{__version__}",
            **self._custom_headers,
        }
        content = spec.content
        if content is None and not spec.invoke:
            content = _encode_body(spec.body, options.extra_body)
            if content is not None:
                headers["Content-Type"] = "application/json"
        headers.update(spec.headers or {})
        headers.update(options.extra_headers or {})
        if spec.method in ("POST", "PATCH") and not any(k.lower() == "idempotency-key" for k in headers):
            # One key per logical call, sent again on each retry: the server answers a retry from its record.
            key = options.idempotency_key
            headers["Idempotency-Key"] = key if isinstance(key, str) else f"tessera-python-{uuid.uuid4()}"
        return url, query, headers, content

    def _max_retries(self, spec: RequestSpec) -> int:
        value = spec.options.max_retries
        return self.max_retries if isinstance(value, NotGiven) else value

    def _timeout(self, spec: RequestSpec) -> Timeout:
        value = spec.options.timeout
        return self.timeout if isinstance(value, NotGiven) else value

    def _finish(self, spec: RequestSpec, response: httpx.Response, parse: Parser[_T]) -> _T:
        if RAW_RESPONSE.get():
            return APIResponse(response, lambda: parse(response, spec, self))  # type: ignore[return-value]
        return parse(response, spec, self)


def _log_retry(spec: RequestSpec, delay: float, reason: str, retries_left: int) -> None:
    log.info("retrying %s %s in %.2fs (%s; %d retries left)", spec.method, spec.path, delay, reason, retries_left)


class SyncAPIClient(_BaseClient):
    """The synchronous HTTP core (``Tessera`` builds on it)."""

    _http: httpx.Client

    def __init__(
        self,
        *,
        api_key: str | None,
        access_token: str | None,
        refresh_token: str | None,
        client_id: str | None,
        client_secret: str | None,
        on_tokens: Callable[[OAuthTokens], object] | None,
        base_url: str | httpx.URL | None,
        timeout: Timeout | NotGiven,
        max_retries: int,
        default_headers: Mapping[str, str] | None,
        http_client: httpx.Client | None,
    ) -> None:
        super().__init__(
            api_key=api_key,
            access_token=access_token,
            refresh_token=refresh_token,
            client_id=client_id,
            client_secret=client_secret,
            on_tokens=on_tokens,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
        )
        if http_client is not None and not isinstance(http_client, httpx.Client):
            raise TesseraError("http_client must be an httpx.Client (AsyncTessera takes an httpx.AsyncClient)")
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=self.timeout, follow_redirects=False)

    def close(self) -> None:
        """Closes the connection pool (unless it was given as http_client)."""
        if self._owns_http:
            self._http.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        parse: Parser[_T],
        query: Mapping[str, object] | None = None,
        body: object = NOT_GIVEN,
        content: bytes | None = None,
        headers: Mapping[str, object] | None = None,
        options: RequestOptions | None = None,
        stream: bool = False,
        invoke: bool = False,
    ) -> _T:
        """Sends one call, with retries, and parses its answer (``parse``)."""
        spec = self._spec(
            method,
            path,
            query=query,
            body=body,
            content=content,
            headers=headers,
            options=options,
            stream=stream,
            invoke=invoke,
        )
        return self._finish(spec, self._send(spec), parse)

    def _token(self) -> str:
        credentials = self._credentials
        if credentials.token is None:
            self._refresh(None)
        return credentials.token or ""

    def _refresh(self, used: str | None) -> None:
        credentials = self._credentials
        with credentials.lock:
            if credentials.token is not None and credentials.token != used:
                return  # another call refreshed it meanwhile
            form, headers = credentials.token_request()
            # Never retried: a refresh token is single-use, and presenting it twice revokes the grant.
            response = self._http.post(f"{self.base_url}/oauth/token", data=form, headers=headers, timeout=self.timeout)
            credentials.accept(response)

    def _send(self, spec: RequestSpec) -> httpx.Response:
        url, query, headers, content = self._prepare(spec)
        max_retries = self._max_retries(spec)
        timeout = self._timeout(spec)
        retries = 0
        refreshed = False
        while True:
            token = self._token()
            request = self._http.build_request(
                spec.method,
                url,
                params=query,
                headers={**headers, "Authorization": f"Bearer {token}"},
                content=content,
                timeout=timeout,
            )
            log.debug("%s %s (attempt %d)", spec.method, spec.path, retries + 1)
            try:
                response = self._http.send(request, stream=True)
                try:
                    if not spec.stream or response.is_error:
                        response.read()
                except BaseException:
                    response.close()
                    raise
            except httpx.TimeoutException as exc:
                if retries < max_retries and _retryable_transport(spec, exc):
                    delay = _retry_delay(retries, None)
                    _log_retry(spec, delay, "timed out", max_retries - retries)
                    time.sleep(delay)
                    retries += 1
                    continue
                raise APITimeoutError(request=request) from exc
            except httpx.TransportError as exc:
                if retries < max_retries and _retryable_transport(spec, exc):
                    delay = _retry_delay(retries, None)
                    _log_retry(spec, delay, type(exc).__name__, max_retries - retries)
                    time.sleep(delay)
                    retries += 1
                    continue
                raise APIConnectionError(f"Connection error: {exc}", request=request) from exc
            if not response.is_error:
                return response
            if (
                response.status_code == 401
                and not refreshed
                and self._credentials.can_refresh
                and _invalid_token(response)
            ):
                refreshed = True
                try:
                    self._refresh(token)
                except APIError as exc:
                    error = status_error(response)
                    error.message += f"; refreshing the access token failed: {exc.message}"
                    raise error from exc
                continue
            if retries < max_retries and _retryable_status(spec, response):
                delay = _retry_delay(retries, response.headers)
                _log_retry(spec, delay, f"status {response.status_code}", max_retries - retries)
                time.sleep(delay)
                retries += 1
                continue
            if spec.invoke and not _is_tessera_problem(response):
                return response  # the function's own answer, whatever its status
            raise status_error(response)

    def invoke_function(
        self,
        function: str,
        *,
        method: str | NotGiven,
        path: str,
        body: object,
        headers: Mapping[str, str] | None,
        query: Query | None,
        options: RequestOptions,
    ) -> FunctionResponse:
        method_, full_path, content, headers_ = _invoke_request(function, method, path, body, headers)
        return self.request(
            method_,
            full_path,
            query=query,
            content=content,
            headers=headers_,
            options=options,
            invoke=True,
            parse=_function_response,
        )

    def __enter__(self: _SC) -> _SC:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncAPIClient(_BaseClient):
    """The asynchronous HTTP core (``AsyncTessera`` builds on it), for asyncio."""

    _http: httpx.AsyncClient

    def __init__(
        self,
        *,
        api_key: str | None,
        access_token: str | None,
        refresh_token: str | None,
        client_id: str | None,
        client_secret: str | None,
        on_tokens: Callable[[OAuthTokens], object] | None,
        base_url: str | httpx.URL | None,
        timeout: Timeout | NotGiven,
        max_retries: int,
        default_headers: Mapping[str, str] | None,
        http_client: httpx.AsyncClient | None,
    ) -> None:
        super().__init__(
            api_key=api_key,
            access_token=access_token,
            refresh_token=refresh_token,
            client_id=client_id,
            client_secret=client_secret,
            on_tokens=on_tokens,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
        )
        if http_client is not None and not isinstance(http_client, httpx.AsyncClient):
            raise TesseraError("http_client must be an httpx.AsyncClient (Tessera takes an httpx.Client)")
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=self.timeout, follow_redirects=False)

    async def close(self) -> None:
        """Closes the connection pool (unless it was given as http_client)."""
        if self._owns_http:
            await self._http.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        parse: Parser[_T],
        query: Mapping[str, object] | None = None,
        body: object = NOT_GIVEN,
        content: bytes | None = None,
        headers: Mapping[str, object] | None = None,
        options: RequestOptions | None = None,
        stream: bool = False,
        invoke: bool = False,
    ) -> _T:
        """Sends one call, with retries, and parses its answer (``parse``)."""
        spec = self._spec(
            method,
            path,
            query=query,
            body=body,
            content=content,
            headers=headers,
            options=options,
            stream=stream,
            invoke=invoke,
        )
        return self._finish(spec, await self._send(spec), parse)

    async def _token(self) -> str:
        if self._credentials.token is None:
            await self._refresh(None)
        return self._credentials.token or ""

    async def _refresh(self, used: str | None) -> None:
        credentials = self._credentials
        if credentials.async_lock is None:
            credentials.async_lock = asyncio.Lock()
        async with credentials.async_lock:
            if credentials.token is not None and credentials.token != used:
                return
            form, headers = credentials.token_request()
            response = await self._http.post(
                f"{self.base_url}/oauth/token", data=form, headers=headers, timeout=self.timeout
            )
            credentials.accept(response)

    async def _send(self, spec: RequestSpec) -> httpx.Response:
        url, query, headers, content = self._prepare(spec)
        max_retries = self._max_retries(spec)
        timeout = self._timeout(spec)
        retries = 0
        refreshed = False
        while True:
            token = await self._token()
            request = self._http.build_request(
                spec.method,
                url,
                params=query,
                headers={**headers, "Authorization": f"Bearer {token}"},
                content=content,
                timeout=timeout,
            )
            log.debug("%s %s (attempt %d)", spec.method, spec.path, retries + 1)
            try:
                response = await self._http.send(request, stream=True)
                try:
                    if not spec.stream or response.is_error:
                        await response.aread()
                except BaseException:
                    await response.aclose()
                    raise
            except httpx.TimeoutException as exc:
                if retries < max_retries and _retryable_transport(spec, exc):
                    delay = _retry_delay(retries, None)
                    _log_retry(spec, delay, "timed out", max_retries - retries)
                    await asyncio.sleep(delay)
                    retries += 1
                    continue
                raise APITimeoutError(request=request) from exc
            except httpx.TransportError as exc:
                if retries < max_retries and _retryable_transport(spec, exc):
                    delay = _retry_delay(retries, None)
                    _log_retry(spec, delay, type(exc).__name__, max_retries - retries)
                    await asyncio.sleep(delay)
                    retries += 1
                    continue
                raise APIConnectionError(f"Connection error: {exc}", request=request) from exc
            if not response.is_error:
                return response
            if (
                response.status_code == 401
                and not refreshed
                and self._credentials.can_refresh
                and _invalid_token(response)
            ):
                refreshed = True
                try:
                    await self._refresh(token)
                except APIError as exc:
                    error = status_error(response)
                    error.message += f"; refreshing the access token failed: {exc.message}"
                    raise error from exc
                continue
            if retries < max_retries and _retryable_status(spec, response):
                delay = _retry_delay(retries, response.headers)
                _log_retry(spec, delay, f"status {response.status_code}", max_retries - retries)
                await asyncio.sleep(delay)
                retries += 1
                continue
            if spec.invoke and not _is_tessera_problem(response):
                return response
            raise status_error(response)

    async def invoke_function(
        self,
        function: str,
        *,
        method: str | NotGiven,
        path: str,
        body: object,
        headers: Mapping[str, str] | None,
        query: Query | None,
        options: RequestOptions,
    ) -> FunctionResponse:
        method_, full_path, content, headers_ = _invoke_request(function, method, path, body, headers)
        return await self.request(
            method_,
            full_path,
            query=query,
            content=content,
            headers=headers_,
            options=options,
            invoke=True,
            parse=_function_response,
        )

    async def __aenter__(self: _AC) -> _AC:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _invoke_request(
    function: str, method: str | NotGiven, path: str, body: object, headers: Mapping[str, str] | None
) -> tuple[str, str, bytes | None, dict[str, str]]:
    """``functions.invoke``'s request: GET without a body and POST with one, unless ``method`` says."""
    has_body = body is not None and not isinstance(body, NotGiven)
    method_ = (method if isinstance(method, str) else ("POST" if has_body else "GET")).upper()
    if path and not path.startswith("/"):
        path = "/" + path
    out_headers = dict(headers or {})
    given = {key.lower() for key in out_headers}
    content: bytes | None = None
    if isinstance(body, bytes):
        content = body
        if "content-type" not in given:
            out_headers["Content-Type"] = "application/octet-stream"
    elif isinstance(body, str):
        content = body.encode()
        if "content-type" not in given:
            out_headers["Content-Type"] = "text/plain; charset=utf-8"
    elif has_body:
        content = json.dumps(body, default=_json_default, ensure_ascii=False, separators=(",", ":")).encode()
        if "content-type" not in given:
            out_headers["Content-Type"] = "application/json"
    if "accept" not in given:
        out_headers["Accept"] = "*/*"
    return method_, f"/v1/functions/{path_param(function)}/invoke{path}", content, out_headers


def _function_response(response: httpx.Response, spec: RequestSpec, client: Any) -> FunctionResponse:
    return FunctionResponse(response)


def json_object(response: httpx.Response) -> dict[str, Any]:
    """The body of a successful answer as a JSON object, or an APIError saying what came instead."""
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        kind = response.headers.get("content-type", "no content type")
        raise APIError(
            f"{response.status_code}: expected a JSON object from {response.request.method} "
            f"{response.request.url.path}, got {kind}",
            request=response.request,
            status_code=response.status_code,
            headers=response.headers,
            body=response.text[:500] or None,
        )
    return body


def model_parser(cls: type[_M]) -> Parser[_M]:
    """Parses a JSON object as ``cls``."""

    def parse(response: httpx.Response, spec: RequestSpec, client: Any) -> _M:
        return cls(json_object(response))

    return parse


def no_content(response: httpx.Response, spec: RequestSpec, client: Any) -> None:
    """A 204: nothing to parse."""
    return None
