"""BaseModel: attribute access over the JSON object, lazily typed nested objects, nothing lost."""

from __future__ import annotations

import copy
import pickle

import pytest

from tessera.types import Function, FunctionCronTrigger, FunctionEventTrigger, Invoice, InvoiceLineItem, Me


def invoice(**extra: object) -> dict[str, object]:
    return {
        "id": "inv_1",
        "object": "invoice",
        "amount": 12.5,
        "line_items": [{"product_id": None, "description": "x", "quantity": 1, "unit_price": 12.5, "amount": 12.5}],
        "metadata": {"k": "v"},
        **extra,
    }


def test_fields_read_as_attributes_and_nested_objects_become_models() -> None:
    model = Invoice(invoice())
    assert model.amount == 12.5
    assert isinstance(model.line_items[0], InvoiceLineItem)
    assert model.line_items[0].unit_price == 12.5
    assert model.line_items is model.line_items  # converted once
    assert model.metadata == {"k": "v"}


def test_a_declared_field_absent_from_the_object_reads_none_an_undeclared_one_raises() -> None:
    model = Invoice(invoice())
    assert model.paid_at is None
    with pytest.raises(AttributeError):
        model.amout  # type: ignore[attr-defined]  # noqa: B018


def test_unknown_fields_are_kept() -> None:
    model = Invoice(invoice(added_later={"x": 1}))
    assert model.to_dict()["added_later"] == {"x": 1}
    assert getattr(model, "added_later") == {"x": 1}  # noqa: B009
    assert "added_later" in dir(model)


def test_models_are_read_only_compare_by_content_and_show_their_fields() -> None:
    model = Invoice(invoice())
    with pytest.raises(AttributeError):
        model.amount = 3  # type: ignore[misc]
    assert model == Invoice(invoice())
    assert model != Invoice(invoice(amount=1))
    assert repr(model).startswith("Invoice(id='inv_1', object='invoice', amount=12.5")
    copied = model.to_dict()
    copied["amount"] = 0
    assert model.amount == 12.5
    assert pickle.loads(pickle.dumps(model)) == model
    assert copy.deepcopy(model) == model
    assert '"amount": 12.5' in model.to_json()


def test_unions_are_told_apart_by_their_discriminator() -> None:
    fn = Function(
        {
            "triggers": [
                {"type": "event", "events": ["invoice.paid"]},
                {"type": "cron", "schedule": "* * * * *"},
                {"type": "later", "x": 1},
            ]
        }
    )
    event, cron, unknown = fn.triggers
    assert isinstance(event, FunctionEventTrigger) and event.events == ["invoice.paid"]
    assert isinstance(cron, FunctionCronTrigger) and cron.schedule == "* * * * *"
    assert unknown.to_dict() == {"type": "later", "x": 1}
    me = Me({"credential": {"type": "user", "user": {"id": "usr_1", "email": "e", "name": "n"}, "role": "owner"}})
    assert type(me.credential).__name__ == "MeCredentialUser"
