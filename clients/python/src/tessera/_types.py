"""Small types shared by the client: the NOT_GIVEN sentinel and request-option aliases."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Union

import httpx

__all__ = ["NOT_GIVEN", "Body", "Headers", "NotGiven", "Query", "Timeout"]


class NotGiven:
    """The value of an argument left out, told apart from ``None`` (which sends ``null``).

    >>> client.invoices.update("inv_…", description=None)  # sends {"description": null}
    >>> client.invoices.update("inv_…")  # sends {}
    """

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()

Headers = Mapping[str, str]
Query = Mapping[str, object]
Body = Mapping[str, object]
# A number of seconds, an httpx.Timeout, or None for no timeout at all.
Timeout = Union[float, httpx.Timeout, None]
