"""Every operation of the OpenAPI document has exactly one client method, and every method an operation.

The document is the repository's openapi/openapi.json, read as it is now: an operation added to the
API without regenerating the client (scripts/clients-python.ts) fails here.
"""

from __future__ import annotations

import inspect
import json
from collections import Counter

import pytest

from conftest import OPENAPI
from tessera import AsyncTessera, Tessera
from tessera._generated.operations import OPERATIONS, RESOURCE_GROUPS
from tessera._resource import AsyncAPIResource, SyncAPIResource

# Methods of the clients that send no request of their own.
HELPERS = {"webhooks.verify"}
METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


def document_operations() -> dict[str, tuple[str, str]]:
    if not OPENAPI.exists():
        pytest.skip(f"no OpenAPI document at {OPENAPI} (set TESSERA_REPO to the repository)")
    document = json.loads(OPENAPI.read_text())
    found: dict[str, tuple[str, str]] = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                assert operation["operationId"] not in found, operation["operationId"]
                found[operation["operationId"]] = (method.upper(), path)
    return found


def client_methods(root: object, resource_type: type) -> dict[str, object]:
    """Every public method reachable from the client's resource attributes: ``invoices.list`` → the method."""
    found: dict[str, object] = {}

    def visit(obj: object, prefix: str) -> None:
        for name in dir(type(obj)):
            if name.startswith("_") or name == "with_raw_response":
                continue
            value = getattr(obj, name)
            if isinstance(value, resource_type):
                visit(value, f"{prefix}{name}.")
            elif prefix and inspect.ismethod(value):
                found[f"{prefix}{name}"] = value

    for name, value in vars(root).items():
        if isinstance(value, resource_type):
            visit(value, f"{name}.")
    found.update({helper: getattr(getattr(root, helper.split(".")[0]), helper.split(".")[1]) for helper in HELPERS})
    return found


def differences(document: dict[str, tuple[str, str]]) -> list[str]:
    """What does not match between the document's operations and the client's table."""
    table = {op.operation_id: (op.method, op.path) for op in OPERATIONS}
    problems = [
        f"{op} is in the table {n} times" for op, n in Counter(o.operation_id for o in OPERATIONS).items() if n > 1
    ]
    problems += [
        f"{op} has no client method (run scripts/clients-python.ts)" for op in sorted(set(document) - set(table))
    ]
    problems += [f"{op} is no longer in the document" for op in sorted(set(table) - set(document))]
    problems += [
        f"{op} is {table[op]}, not {where}" for op, where in document.items() if op in table and table[op] != where
    ]
    return problems


def test_the_table_lists_every_operation_of_the_document_once_with_its_method_and_path() -> None:
    assert differences(document_operations()) == []
    assert {op.operation_id.split(".")[0] for op in OPERATIONS} <= set(RESOURCE_GROUPS)


def test_a_new_operation_in_the_document_fails_the_check() -> None:
    document = {**document_operations(), "widgets.list": ("GET", "/v1/widgets")}
    assert differences(document) == ["widgets.list has no client method (run scripts/clients-python.ts)"]


@pytest.mark.parametrize("client_class", [Tessera, AsyncTessera])
def test_every_operation_has_exactly_one_method_and_every_method_an_operation(client_class: type) -> None:
    client = client_class(api_key="sk_live_coverage")
    resource_type = AsyncAPIResource if client_class is AsyncTessera else SyncAPIResource
    methods = client_methods(client, resource_type)
    accessors = {op.accessor for op in OPERATIONS}
    for op in OPERATIONS:
        assert op.accessor in methods, f"{op.operation_id}: client.{op.accessor} does not exist"
    unmapped = sorted(set(methods) - accessors - HELPERS)
    assert unmapped == [], f"methods that send no operation of the document: {unmapped}"
    # One method per operation; only the invoke URL's methods share one (functions.invoke(method=...)).
    shared = {a: {op.operation_id for op in OPERATIONS if op.accessor == a} for a in accessors}
    assert {a: ids for a, ids in shared.items() if len(ids) > 1} == {
        "functions.invoke": {
            "functions.invoke_get",
            "functions.invoke_post",
            "functions.invoke_put",
            "functions.invoke_patch",
            "functions.invoke_delete",
        }
    }


@pytest.mark.parametrize("client_class", [Tessera, AsyncTessera])
def test_with_raw_response_mirrors_every_method(client_class: type) -> None:
    client = client_class(api_key="sk_live_coverage")
    for op in OPERATIONS:
        *path, name = op.accessor.split(".")
        resource: object = client
        for part in path:
            resource = getattr(resource, part)
        assert callable(getattr(getattr(resource, "with_raw_response"), name)), op.accessor  # noqa: B009


def test_the_grouping_of_sub_resources() -> None:
    assert RESOURCE_GROUPS["sync_actions"] == "sync.actions"
    assert RESOURCE_GROUPS["sync_interactions"] == "sync.interactions"
    assert RESOURCE_GROUPS["sync_conversations"] == "sync.conversations"
    client = Tessera(api_key="sk_live_coverage")
    assert callable(client.sync.actions.approve) and callable(client.webhook_endpoints.rotate_secret)
