"""SYNC: ask, follow up, approve a proposed change; the answer streamed as Server-Sent Events."""

from __future__ import annotations

import pytest

from tessera import APIError, ChatStream, ConflictError, NotFoundError, Tessera
from tessera.types import ChatActionEvent, ChatDeltaEvent, ChatInteractionEvent, SyncInteraction


def test_a_write_proposal_changes_nothing_until_it_is_approved(client: Tessera, unique: str) -> None:
    email = f"jane-{unique}@roe.example"
    asked = client.sync.chat(message=f"add a contact Jane Roe, {email}")
    assert isinstance(asked, SyncInteraction)
    assert asked.status == "requires_approval"
    (action,) = asked.actions
    assert action.status == "proposed" and action.tool == "create_record"
    assert "Jane Roe" in action.preview
    assert client.contacts.list(email=email).meta.total == 0

    approved = client.sync.actions.approve(action.id)
    assert approved.status == "completed"
    assert approved.result is not None and approved.result["email"] == email
    assert client.contacts.list(email=email).data[0].name == "Jane Roe"
    assert client.sync.actions.retrieve(action.id).decided_at is not None
    with pytest.raises(ConflictError):
        client.sync.actions.approve(action.id)  # single-use

    interaction = client.sync.interactions.retrieve(asked.id)
    assert interaction.actions[0].id == action.id
    assert asked.id in [i.id for i in client.sync.interactions.list(conversation_id=asked.conversation_id)]
    conversation = client.sync.conversations.retrieve(asked.conversation_id)
    assert [i.id for i in conversation.interactions] == [asked.id]
    assert any(c.id == asked.conversation_id for c in client.sync.conversations.list(per_page=100))


def test_a_follow_up_in_the_same_conversation_and_a_rejection(client: Tessera, unique: str) -> None:
    first = client.sync.chat(message=f"add a contact Rex Reject, rex-{unique}@example.com")
    follow = client.sync.chat(message="how many contacts are there?", conversation_id=first.conversation_id)
    assert follow.conversation_id == first.conversation_id and follow.status == "completed"
    rejected = client.sync.actions.reject(first.actions[0].id)
    assert rejected.status == "rejected"
    with pytest.raises(NotFoundError):
        client.sync.chat(message="hello", conversation_id="conv_doesnotexist")


def test_the_answer_streams_as_events_then_the_final_interaction(client: Tessera, unique: str) -> None:
    stream = client.sync.chat(message=f"add a contact Sam Stream, sam-{unique}@example.com", stream=True)
    assert isinstance(stream, ChatStream)
    with stream:
        kinds = []
        for event in stream:
            kinds.append(event.type)
            if isinstance(event, ChatDeltaEvent):
                assert event.text
            elif isinstance(event, ChatActionEvent):
                assert event.action.status == "proposed"
            elif isinstance(event, ChatInteractionEvent):
                assert event.interaction.status == "requires_approval"
    assert kinds[0] == "delta" and kinds[-1] == "interaction" and "action" in kinds
    final = stream.final_interaction()
    assert final.actions[0].id == stream.actions[0].id
    assert stream.text == final.reply
    assert client.sync.actions.approve(final.actions[0].id).status == "completed"


def test_final_interaction_reads_the_rest_of_the_stream(client: Tessera) -> None:
    stream = client.sync.chat(message="How many candidates are in interview?", stream=True)
    interaction = stream.final_interaction()
    assert interaction.status == "completed" and interaction.reply == stream.text


def test_a_request_refused_before_the_stream_starts_raises(client: Tessera) -> None:
    with pytest.raises(APIError) as raised:
        client.sync.chat(message="x" * 5000, stream=True)
    assert raised.value.status_code == 413
