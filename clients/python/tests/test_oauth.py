"""OAuth: an access token works like a key; an expired one is refreshed once, the new pair handed over.

The tokens come from the real code flow with PKCE: the first owner set up through the link the
server printed, an app registered, the consent page approved as a browser would, the code exchanged.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlparse

import httpx
import pytest

from conftest import Server
from scripted import Respond, problem, scripted
from tessera import AsyncTessera, AuthenticationError, OAuthTokens, Tessera

REDIRECT = "http://127.0.0.1:9000/callback"


@dataclass
class App:
    client_id: str
    client_secret: str


def csrf_of(html: str) -> str:
    found = re.search(r'name="_csrf" value="([^"]+)"', html)
    assert found, html[:500]
    return found.group(1)


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[httpx.Client]:
    """A signed-in owner's browser: the setup link the server printed, followed once."""
    assert server.setup_url, server.log()
    with httpx.Client(base_url=server.url, follow_redirects=False) as http:
        page = http.get(server.setup_url)
        form = {
            "_csrf": csrf_of(page.text),
            "name": "Owner",
            "email": "owner@example.com",
            "password": "a long passphrase",
        }
        answer = http.post(server.setup_url, data=form, headers={"origin": server.url})
        assert answer.status_code == 303, answer.text
        yield http


@pytest.fixture(scope="module")
def app(client: Tessera) -> App:
    registered = client.oauth_apps.create(name="Ledger Sync", redirect_uris=[REDIRECT], scopes=["finance:read"])
    assert registered.client_secret
    return App(registered.client_id, registered.client_secret)


def authorize(browser: httpx.Client, server: Server, app: App) -> dict[str, str]:
    """The code flow: consent approved in the browser, then the code exchanged for tokens."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {
        "client_id": app.client_id,
        "redirect_uri": REDIRECT,
        "response_type": "code",
        "scope": "finance:read",
        "state": "s1",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    interaction = browser.get(f"/oauth/auth?{urlencode(query)}").headers["location"]
    page = browser.get(interaction)
    org = re.search(r'name="org" value="([^"]+)"', page.text)
    assert org, page.text[:500]
    approved = browser.post(
        f"{interaction}/approve",
        data={"_csrf": csrf_of(page.text), "org": org.group(1)},
        headers={"origin": server.url},
    )
    callback = browser.get(approved.headers["location"]).headers["location"]
    code = parse_qs(urlparse(callback).query)["code"][0]
    tokens = httpx.post(
        f"{server.url}/oauth/token",
        auth=(app.client_id, app.client_secret),
        data={"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": REDIRECT},
    )
    assert tokens.status_code == 200, tokens.text
    body: dict[str, str] = tokens.json()
    return body


def test_an_access_token_is_a_bearer_credential_like_a_key(browser: httpx.Client, server: Server, app: App) -> None:
    tokens = authorize(browser, server, app)
    with Tessera(access_token=tokens["access_token"], base_url=server.url) as client:
        me = client.me.retrieve()
        assert me.credential.type == "oauth"
        assert me.credential.scopes == ["finance:read"]
        assert client.invoices.list(per_page=1).meta.per_page == 1
        assert client.credential_kind == "oauth"


def test_an_invalid_access_token_is_refreshed_once_and_the_new_pair_handed_over(
    browser: httpx.Client, server: Server, app: App
) -> None:
    tokens = authorize(browser, server, app)
    handed: list[OAuthTokens] = []

    def client_with(access_token: str, refresh_token: str) -> Tessera:
        return Tessera(
            access_token=access_token,
            refresh_token=refresh_token,
            client_id=app.client_id,
            client_secret=app.client_secret,
            on_tokens=handed.append,
            base_url=server.url,
        )

    # An access token the server no longer takes (as an expired one): 401 invalid_token.
    with client_with("expired-access-token", tokens["refresh_token"]) as client:
        assert client.me.retrieve().credential.type == "oauth"
        assert len(handed) == 1
        renewed = handed[0]
        assert renewed.access_token != tokens["access_token"]
        # Refresh tokens rotate on every use: the new one comes with the new access token.
        assert renewed.refresh_token and renewed.refresh_token != tokens["refresh_token"]
        assert client.invoices.list(per_page=1).meta.per_page == 1
        assert len(handed) == 1  # the new access token is used from now on

    # The rotated refresh token is the one that works next (the spent one would revoke the grant).
    with client_with("expired-again", renewed.refresh_token) as client:
        client.me.retrieve()
    assert len(handed) == 2 and handed[1].refresh_token not in (None, renewed.refresh_token)
    with Tessera(access_token=handed[1].access_token, base_url=server.url) as plain:
        assert plain.me.retrieve().credential.type == "oauth"


def test_a_refresh_that_fails_raises_the_401_saying_why(server: Server, app: App) -> None:
    refreshes: list[OAuthTokens] = []
    with Tessera(
        access_token="not-a-token",
        refresh_token="not-a-refresh-token",
        client_id=app.client_id,
        client_secret=app.client_secret,
        on_tokens=refreshes.append,
        base_url=server.url,
    ) as client:
        with pytest.raises(AuthenticationError) as raised:
            client.me.retrieve()
    assert raised.value.code == "invalid_token"
    assert "refreshing the access token failed" in raised.value.message
    assert "invalid_grant" in raised.value.message
    assert refreshes == []


def test_without_a_refresh_token_a_401_is_raised_at_once(server: Server) -> None:
    with Tessera(access_token="not-a-token", base_url=server.url) as client:
        with pytest.raises(AuthenticationError):
            client.me.retrieve()


async def test_the_async_client_refreshes_once_and_retries_against_a_scripted_server() -> None:
    invalid = Respond(
        401, problem(401, "invalid_token"), {"WWW-Authenticate": 'Bearer realm="tessera", error="invalid_token"'}
    )
    fresh = {"access_token": "at-2", "refresh_token": "rt-2", "token_type": "Bearer", "expires_in": 3600, "scope": "x"}
    me = {"object": "me", "organization": {}, "credential": {"type": "oauth"}}

    def answer(request: object) -> Respond:
        path = getattr(request, "path", "")
        if path == "/oauth/token":
            return Respond(200, fresh)
        auth = getattr(request, "headers", {}).get("authorization")
        return Respond(200, me) if auth == "Bearer at-2" else invalid

    with scripted(answer) as server:
        handed: list[OAuthTokens] = []
        async with AsyncTessera(
            access_token="at-1",
            refresh_token="rt-1",
            client_id="oc_1",
            client_secret="ocs_1",
            on_tokens=handed.append,
            base_url=server.url,
        ) as client:
            assert (await client.me.retrieve()).credential.type == "oauth"
    paths = [(r.method, r.path, r.headers.get("authorization")) for r in server.requests]
    assert paths[0] == ("GET", "/v1/me", "Bearer at-1")
    assert paths[1][:2] == ("POST", "/oauth/token")
    assert paths[1][2] == "Basic " + base64.b64encode(b"oc_1:ocs_1").decode()
    assert server.requests[1].body == b"grant_type=refresh_token&refresh_token=rt-1"
    assert paths[2] == ("GET", "/v1/me", "Bearer at-2")
    assert [t.refresh_token for t in handed] == ["rt-2"]


def test_the_token_endpoint_is_called_once_even_when_the_new_token_fails_too() -> None:
    invalid = Respond(401, problem(401, "invalid_token"), {"WWW-Authenticate": 'Bearer error="invalid_token"'})
    fresh = {"access_token": "at-2", "refresh_token": "rt-2", "token_type": "Bearer"}

    def answer(request: object) -> Respond:
        return Respond(200, fresh) if getattr(request, "path", "") == "/oauth/token" else invalid

    with scripted(answer) as server:
        client = Tessera(access_token="at-1", refresh_token="rt-1", client_id="oc_pub", base_url=server.url)
        with pytest.raises(AuthenticationError):
            client.me.retrieve()
    assert [r.path for r in server.requests] == ["/v1/me", "/oauth/token", "/v1/me"]
    # A public app sends its client_id in the form instead of a secret.
    assert b"client_id=oc_pub" in server.requests[1].body
