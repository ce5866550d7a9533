"""The Python client library for the Tessera API.

>>> from tessera import Tessera
>>> client = Tessera()  # reads TESSERA_API_KEY and TESSERA_BASE_URL
>>> client.invoices.list(status="overdue").meta.total
"""

from __future__ import annotations

from . import types, webhooks
from ._base_client import DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, OAuthTokens
from ._client import AsyncTessera, Tessera
from ._exceptions import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    FieldError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    TesseraError,
    UnprocessableEntityError,
    WebhookVerificationError,
)
from ._models import BaseModel
from ._pagination import AsyncCursorPage, AsyncPage, CursorPageMeta, PageMeta, SyncCursorPage, SyncPage
from ._response import APIResponse, FunctionResponse
from ._sse import ServerSentEvent
from ._streaming import AsyncChatStream, AsyncEventStream, ChatStream, EventStream
from ._types import NOT_GIVEN, NotGiven
from ._version import __version__

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "NOT_GIVEN",
    "APIConnectionError",
    "APIError",
    "APIResponse",
    "APIStatusError",
    "APITimeoutError",
    "AsyncChatStream",
    "AsyncCursorPage",
    "AsyncEventStream",
    "AsyncPage",
    "AsyncTessera",
    "AuthenticationError",
    "BadRequestError",
    "BaseModel",
    "ChatStream",
    "ConflictError",
    "CursorPageMeta",
    "EventStream",
    "FieldError",
    "FunctionResponse",
    "InternalServerError",
    "NotFoundError",
    "NotGiven",
    "OAuthTokens",
    "PageMeta",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerSentEvent",
    "SyncCursorPage",
    "SyncPage",
    "Tessera",
    "TesseraError",
    "UnprocessableEntityError",
    "WebhookVerificationError",
    "__version__",
    "types",
    "webhooks",
]
