"""``BaseModel``: a typed, read-only view of a JSON object, the base of every generated model.

A model keeps the JSON object it was made from. Attributes read from it: the generated subclasses
declare each field with its type (for mypy and editors), and list the fields that hold other
models in ``_converters``, so ``invoice.line_items[0].amount`` converts the nested objects when
first read. Fields the server added after this library was generated are kept: ``to_dict()``
returns them, and reading them as attributes works at run time (``getattr(model, "new_field")``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, ClassVar, TypeVar

__all__ = ["BaseModel", "Converter", "dict_of", "list_of", "model", "union"]

Converter = Callable[[Any], Any]
_M = TypeVar("_M", bound="BaseModel")
_DECLARED: dict[type, frozenset[str]] = {}


def _declared_fields(cls: type) -> frozenset[str]:
    """The names annotated on a model class and its bases: declared fields read as None when absent."""
    found = _DECLARED.get(cls)
    if found is None:
        names: set[str] = set()
        for klass in cls.__mro__:
            names.update(name for name in klass.__dict__.get("__annotations__", {}) if not name.startswith("_"))
        found = _DECLARED[cls] = frozenset(names)
    return found


class BaseModel:
    """A JSON object with attribute access: ``invoice.amount``, ``page.meta.total``."""

    __slots__ = ("_cache", "_data")

    # Fields holding models, lists or maps of models: how to convert them when first read.
    _converters: ClassVar[dict[str, Converter]] = {}
    # Python attribute name -> JSON key, for keys that are not valid identifiers (``from`` -> ``from_``).
    _aliases: ClassVar[dict[str, str]] = {}

    _data: dict[str, Any]
    _cache: dict[str, Any]

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", dict(data))
        object.__setattr__(self, "_cache", {})

    if not TYPE_CHECKING:
        # Only at run time: declared to the type checker, __getattr__ would let any attribute through.

        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            cache = self._cache
            if name in cache:
                return cache[name]
            cls = type(self)
            key = cls._aliases.get(name, name)
            if key in self._data:
                value = self._data[key]
                converter = cls._converters.get(name)
                if converter is not None and value is not None:
                    value = converter(value)
                    cache[name] = value
                return value
            if name in _declared_fields(cls):
                return None
            raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")

        def __setattr__(self, name: str, value: Any) -> None:
            raise AttributeError(
                f"{type(self).__name__} is read-only; change the object through the API, or take a copy with to_dict()"
            )

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, as the server sent it (a deep copy), unknown fields included."""
        return copy.deepcopy(self._data)

    def to_json(self, *, indent: int | None = 2) -> str:
        """The JSON object as text."""
        return json.dumps(self._data, indent=indent, ensure_ascii=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseModel):
            return NotImplemented
        return type(self) is type(other) and self._data == other._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in self._data.items())
        return f"{type(self).__name__}({fields})"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | _declared_fields(type(self)) | set(self._data))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._data,))


def model(cls: type[_M]) -> Converter:
    """A JSON object as ``cls``."""

    def convert(value: Any) -> Any:
        return cls(value) if isinstance(value, Mapping) else value

    return convert


def list_of(item: Converter) -> Converter:
    """A JSON array, each item converted."""

    def convert(value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [item(entry) if entry is not None else None for entry in value]

    return convert


def dict_of(item: Converter) -> Converter:
    """A JSON object used as a map, each value converted."""

    def convert(value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        return {key: item(entry) if entry is not None else None for key, entry in value.items()}

    return convert


def union(discriminator: str, variants: Mapping[str, type[BaseModel]]) -> Converter:
    """One of several models, told apart by a property (``type``); an unknown kind stays a BaseModel."""

    def convert(value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        kind = value.get(discriminator)
        cls = variants.get(kind, BaseModel) if isinstance(kind, str) else BaseModel
        return cls(value)

    return convert
