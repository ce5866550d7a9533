"""The API's objects (``tessera.types.Invoice``…), request shapes (``…Param``) and stream events."""

from __future__ import annotations

from ._base_client import OAuthTokens
from ._generated.models import *  # noqa: F403
from ._generated.models import __all__ as _models
from ._generated.params import *  # noqa: F403
from ._generated.params import __all__ as _params
from ._pagination import CursorPageMeta, PageMeta
from ._streaming import ChatActionEvent, ChatDeltaEvent, ChatErrorEvent, ChatEvent, ChatInteractionEvent

__all__ = [
    *_models,
    *_params,
    "ChatActionEvent",
    "ChatDeltaEvent",
    "ChatErrorEvent",
    "ChatEvent",
    "ChatInteractionEvent",
    "CursorPageMeta",
    "OAuthTokens",
    "PageMeta",
]
