"""OAuth 2.1 (MCP authorization, 2026-07-28) with the official MCP Python SDK's OAuth client
(`OAuthClientProvider`) against a real `ragdownd serve`, the owner's consent given in Chromium on
the web UI's consent page (consent.mjs), over real HTTP:

- Deny: the client is sent back with error=access_denied (and iss), and no grant exists.
- Flow A, dynamic client registration (RFC 7591): discovery from the 401, registration, PKCE,
  consent, then the SDK's session lists the tools (the write tools too: read+write was asked for)
  and calls a read tool and a write tool (the file appears on disk); the token is refused at
  another folder's endpoint; the SDK refreshes (a new access and refresh token, the call works);
  the retired refresh token is refused, and presenting it revokes the grant: the live tokens stop
  working and the grant is gone from the owner's list.
- Flow B, a client ID metadata document: `client_metadata_url` an https URL on 127.0.0.1 (served
  by https_files.py with a certificate made for the test; the server trusts it through
  SSL_CERT_FILE and allows private addresses), which the server fetches; the same calls and
  refresh; then the owner revokes the grant (`DELETE /api/access/grants/<id>`): the token gets a
  401 and the SDK's next call asks for a new authorization.
- The same metadata-document client against a server without RAGDOWN_OAUTH_PRIVATE_CLIENTS: the
  browser stops at an error page naming the private address, and the document is never fetched.
- Negative checks in plain HTTP (the owner's answers through the API the consent page uses):
  a redirect URI not registered (a 400 page, no redirect), a forged consent answer without the
  CSRF token (403, the request still answerable), a wrong PKCE verifier, a code used twice (the
  tokens it gave are revoked), a name that resolves to a private address.

  python oauth_python.py --url http://127.0.0.1:PORT --strict-url http://127.0.0.1:PORT2 \\
      --token ADMIN --docs DIR --node NODE --consent consent.mjs \\
      --cimd-dir DIR --cimd-base https://127.0.0.1:PORT3 --cimd-log FILE
"""

import argparse
import asyncio
import base64
import hashlib
import json
import os
import queue
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

import httpx
import logging
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

WRITE_TOOLS = {"ragdown_remember", "ragdown_write", "ragdown_edit", "ragdown_delete", "ragdown_move"}
READ_TOOLS = {"ragdown_recall", "ragdown_read_doc", "ragdown_list", "ragdown_backlinks", "ragdown_stats"}
WITHIN_S = 60
# The SDK logs every failed flow with its traceback; the flows made to fail here are checked.
logging.getLogger("mcp.client.auth").setLevel(logging.CRITICAL)


def ok(message: str) -> None:
    print(f"ok: python sdk oauth: {message}", file=sys.stderr)


class Denied(Exception):
    """The authorization response was an error (the owner pressed Deny)."""


class NoMoreConsent(Exception):
    """The SDK asked for an authorization after the test said none should be given."""


class Memory(TokenStorage):
    """The SDK's TokenStorage, in memory; every token set saved is kept in `saved`."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None
        self.saved: list[OAuthToken] = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.saved.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Callback:
    """The client's loopback redirect URI, `http://127.0.0.1:<port>/callback`: each request's
    query is queued for the callback handler, and the browser is told it may close."""

    def __init__(self) -> None:
        self.queries: queue.Queue = queue.Queue()
        queries = self.queries

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                url = urlparse(self.path)
                if url.path == "/callback":
                    queries.put({k: v[0] for k, v in parse_qs(url.query).items()})
                body = b"<!doctype html><title>done</title><p>You can close this window."
                self.send_response(200 if url.path == "/callback" else 404)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.server.server_address[1]}/callback"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    async def next(self) -> dict:
        return await asyncio.to_thread(self.queries.get, True, WITHIN_S)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Client:
    """One OAuth client of one MCP endpoint: the SDK's provider with in-memory storage, its
    callback server, and consent given in Chromium when the SDK opens the authorization URL."""

    def __init__(self, args, name: str, mcp_url: str, *, cimd: str | None = None, browser: list[str] | None = None):
        self.args = args
        self.name = name
        self.mcp_url = mcp_url
        self.origin = f"{urlparse(mcp_url).scheme}://{urlparse(mcp_url).netloc}"
        self.storage = Memory()
        self.callback = Callback()
        self.browser = browser if browser is not None else ["--client", name, "--folder", "ops"]
        self.authorizations: list[str] = []
        self.consent_allowed = True
        self.cimd = cimd
        metadata = OAuthClientMetadata(
            client_name=name,
            redirect_uris=[self.callback.uri],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )
        self.provider = OAuthClientProvider(
            server_url=mcp_url,
            client_metadata=metadata,
            storage=self.storage,
            redirect_handler=self.open_browser,
            callback_handler=self.wait_for_callback,
            timeout=WITHIN_S,
            client_metadata_url=cimd,
        )

    async def open_browser(self, authorization_url: str) -> None:
        self.authorizations.append(authorization_url)
        if not self.consent_allowed:
            raise NoMoreConsent(authorization_url)
        url = urlparse(authorization_url)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        assert f"{url.scheme}://{url.netloc}{url.path}" == f"{self.origin}/oauth/authorize", authorization_url
        assert query["resource"] == self.mcp_url, f"resource (RFC 8707): {query}"
        assert query["code_challenge_method"] == "S256" and query["scope"] == "read write", query
        if self.cimd:
            assert query["client_id"] == self.cimd, f"the metadata document's URL is the client_id: {query}"
        proc = await asyncio.create_subprocess_exec(
            self.args.node, self.args.consent, authorization_url, self.args.token, *self.browser
        )
        assert await proc.wait() == 0, f"consent.mjs failed for {self.name}"

    async def wait_for_callback(self) -> tuple[str, str | None]:
        params = await self.callback.next()
        # RFC 9207: the SDK does not check iss, so the client does.
        assert params.get("iss") == self.origin, f"iss: {params}"
        if "error" in params:
            raise Denied(params["error"])
        return params["code"], params.get("state")

    def http(self):
        return streamablehttp_client(self.mcp_url, auth=self.provider)

    def close(self) -> None:
        self.callback.close()


def find(error: BaseException, kind: type) -> BaseException | None:
    """`error` or the first of its causes and grouped exceptions that is a `kind`."""
    if isinstance(error, kind):
        return error
    for inner in getattr(error, "exceptions", ()):
        if found := find(inner, kind):
            return found
    for inner in (error.__cause__, error.__context__):
        if inner is not None and (found := find(inner, kind)):
            return found
    return None


def admin(args) -> dict[str, str]:
    return {"Authorization": f"Bearer {args.token}"}


def grants(args, base: str) -> list[dict]:
    response = httpx.get(f"{base}/api/access/grants", headers=admin(args))
    assert response.status_code == 200, response.text
    return response.json()


def grant_of(args, base: str, client_id: str) -> dict | None:
    return next((g for g in grants(args, base) if g["client_id"] == client_id), None)


def mcp_status(url: str, token: str) -> httpx.Response:
    """A bare `initialize` at an MCP endpoint with a bearer token."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}},
    }
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx.post(url, json=body, headers=headers)


def token_request(base: str, form: dict) -> httpx.Response:
    return httpx.post(f"{base}/oauth/token", data=form)


async def use_tools(client: Client, docs: str, note: str) -> None:
    """The SDK's session with the issued token: tools listed and called, a write on disk."""
    async with client.http() as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name for tool in (await session.list_tools()).tools}
            assert WRITE_TOOLS | READ_TOOLS <= tools, f"{client.name}: read+write tools: {sorted(tools)}"
            found = await session.call_tool("ragdown_recall", {"query": "pg_restore twice"})
            assert not found.isError and found.content[0].text.startswith("[1] backups.md:"), found
            written = await session.call_tool("ragdown_write", {"path": note, "text": f"# {client.name}\n\nWritten with OAuth.\n"})
            assert not written.isError and written.content[0].text.startswith("created "), written
    with open(os.path.join(docs, "ops", note)) as f:
        on_disk = f.read()
    assert f"# {client.name}\n\nWritten with OAuth.\n" in on_disk, f"{note} on disk: {on_disk!r}"
    os.remove(os.path.join(docs, "ops", note))


async def sdk_refresh(client: Client) -> tuple[OAuthToken, OAuthToken]:
    """The SDK's own refresh: its token is marked expired (as an hour later), and the next
    request makes it refresh. Returns the tokens before and after."""
    before = client.storage.tokens
    assert before is not None and before.refresh_token
    client.provider.context.token_expiry_time = time.time() - 1
    asked = len(client.authorizations)
    async with client.http() as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("ragdown_read_doc", {"path": "backups.md"})
            assert not result.isError and "backups.md:1-7 of 7" in result.content[0].text, result
    after = client.storage.tokens
    assert len(client.authorizations) == asked, "the refresh asked for a new authorization"
    assert after is not None and after is not before, "the SDK did not refresh"
    assert after.access_token != before.access_token and after.access_token.startswith("rda_"), after
    assert after.refresh_token != before.refresh_token and after.refresh_token.startswith("rdr_"), "not rotated"
    return before, after


async def flow_deny(args) -> None:
    client = Client(args, "Interop Python (denied)", f"{args.url}/mcp/ops")
    client.browser.append("--deny")
    try:
        async with client.http() as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
        raise AssertionError("a denied client got a session")
    except BaseException as error:  # noqa: BLE001 (anyio wraps it in groups)
        denied = find(error, Denied)
        if denied is None:
            raise
        assert str(denied) == "access_denied", denied
    finally:
        client.close()
    assert client.storage.tokens is None and client.storage.client is not None
    assert grant_of(args, args.url, client.storage.client.client_id) is None, "a denied client has a grant"
    ok("Deny in Chromium sends the client error=access_denied with iss; no tokens, no grant")


async def flow_dcr(args) -> None:
    """Flow A: dynamic client registration; refresh; the retired refresh token used again."""
    client = Client(args, "Interop Python (DCR)", f"{args.url}/mcp/ops")
    try:
        await use_tools(client, args.docs, "oauth-python-dcr.md")
        info = client.storage.client
        assert info is not None and not info.client_id.startswith("https://"), f"registered: {info}"
        assert len(client.authorizations) == 1, client.authorizations
        tokens = client.storage.tokens
        assert tokens.access_token.startswith("rda_") and tokens.scope == "read write", tokens
        grant = grant_of(args, args.url, info.client_id)
        assert grant and grant["path"] == "ops" and grant["access"] == "write", grant
        assert grant["client_name"] == client.name, grant
        ok(f"dynamic registration ({info.client_id}), consent in Chromium, tools listed and called, a write on disk")

        other = mcp_status(f"{args.url}/mcp/journal", tokens.access_token)
        assert other.status_code == 401, f"a token for /mcp/ops at /mcp/journal: {other.status_code}"
        assert 'error="invalid_token"' in other.headers.get("www-authenticate", ""), other.headers
        ok("its token is refused (401 invalid_token) at another folder's endpoint")

        before, after = await sdk_refresh(client)
        ok("the SDK refreshed: new access and refresh tokens, the call works")

        # The retired refresh token, presented again: refused, and the whole grant revoked.
        again = token_request(args.url, {"grant_type": "refresh_token", "refresh_token": before.refresh_token, "client_id": info.client_id})
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant", again.text
        assert mcp_status(f"{args.url}/mcp/ops", after.access_token).status_code == 401, "the grant outlived a reused refresh token"
        latest = token_request(args.url, {"grant_type": "refresh_token", "refresh_token": after.refresh_token, "client_id": info.client_id})
        assert latest.status_code == 400 and latest.json()["error"] == "invalid_grant", latest.text
        assert grant_of(args, args.url, info.client_id) is None, "the grant is still listed"
        ok("the retired refresh token is refused (invalid_grant) and revokes the grant: its tokens stop working")
    finally:
        client.close()


def write_document(args, name: str, client_name: str, redirect_uri: str) -> str:
    url = f"{args.cimd_base}/{name}"
    document = {
        "client_id": url,
        "client_name": client_name,
        "client_uri": "https://example.com/ragdown-interop",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    with open(os.path.join(args.cimd_dir, name), "w") as f:
        json.dump(document, f)
    return url


def fetched(args, name: str) -> bool:
    with open(args.cimd_log) as f:
        return any(line.split() == ["GET", f"/{name}"] for line in f)


async def flow_cimd(args) -> None:
    """Flow B: a client ID metadata document; refresh; the owner revokes the grant."""
    name = "python-client.json"
    client = Client(args, "Interop Python (CIMD)", f"{args.url}/mcp/ops", cimd=f"{args.cimd_base}/{name}")
    try:
        write_document(args, name, client.name, client.callback.uri)
        await use_tools(client, args.docs, "oauth-python-cimd.md")
        assert fetched(args, name), "the server never fetched the metadata document"
        assert client.storage.client.client_id == client.cimd
        grant = grant_of(args, args.url, client.cimd)
        assert grant and grant["path"] == "ops" and grant["access"] == "write", grant
        ok(f"metadata document {client.cimd} fetched over https, consent in Chromium, tools listed and called")

        _, after = await sdk_refresh(client)
        ok("the SDK refreshed a metadata-document client's tokens")

        revoked = httpx.delete(f"{args.url}/api/access/grants/{grant['id']}", headers=admin(args))
        assert revoked.status_code == 200 and revoked.json() == {"revoked": grant["id"]}, revoked.text
        refused = mcp_status(f"{args.url}/mcp/ops", after.access_token)
        assert refused.status_code == 401, f"a revoked grant's token: {refused.status_code}"
        assert 'error="invalid_token"' in refused.headers.get("www-authenticate", ""), refused.headers
        gone = token_request(args.url, {"grant_type": "refresh_token", "refresh_token": after.refresh_token, "client_id": client.cimd})
        assert gone.status_code == 400 and gone.json()["error"] == "invalid_grant", gone.text
        assert grant_of(args, args.url, client.cimd) is None
        # The SDK itself, on its next call, finds the token refused and starts a new authorization.
        client.consent_allowed = False
        await stops_before_a_session(client, "a revoked client got a session")
        ok("the owner revoked the grant: its tokens get 401, and the SDK asks for a new authorization")
    finally:
        client.close()


async def stops_before_a_session(client, what: str) -> None:
    """Connects through the SDK and expects it to stop in the browser (NoMoreConsent) without a session."""
    try:
        async with client.http() as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
        raise AssertionError(what)
    except BaseException as error:  # noqa: BLE001
        if find(error, NoMoreConsent) is None:
            raise


async def flow_private_refused(args) -> None:
    """A metadata document on 127.0.0.1 at a server that does not allow private addresses."""
    name = "python-private.json"
    client = Client(args, "Interop Python (private)", f"{args.strict_url}/mcp/ops", cimd=f"{args.cimd_base}/{name}",
                    browser=["--expect-error", "on a private address (127.0.0.1)"])
    try:
        write_document(args, name, client.name, client.callback.uri)
        original = client.open_browser

        async def then_stop(url: str) -> None:
            await original(url)
            raise NoMoreConsent("the error page was shown")

        client.provider.context.redirect_handler = then_stop
        await stops_before_a_session(client, "a client on a private address got a session")
        assert not fetched(args, name), "the server fetched a document from a private address"
        assert client.callback.queries.empty(), "the browser was sent to the client"
        ok("without RAGDOWN_OAUTH_PRIVATE_CLIENTS the browser stops at an error page naming 127.0.0.1; nothing fetched")
    finally:
        client.close()


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def negatives(args) -> None:
    """The error paths, in plain HTTP; the owner answers through the consent page's API."""
    base, resource = args.url, f"{args.url}/mcp/ops"
    redirect_uri = "http://127.0.0.1:9/callback"
    registered = httpx.post(f"{base}/oauth/register", json={"client_name": "Interop negatives", "redirect_uris": [redirect_uri]})
    assert registered.status_code == 201, registered.text
    client_id = registered.json()["client_id"]

    def authorize(verifier_challenge: str, redirect: str = redirect_uri, cid: str = client_id, at: str = base) -> httpx.Response:
        query = {
            "response_type": "code", "client_id": cid, "redirect_uri": redirect, "state": "s1",
            "code_challenge": verifier_challenge, "code_challenge_method": "S256", "scope": "read write",
            "resource": f"{at}/mcp/ops",
        }
        return httpx.get(f"{at}/oauth/authorize?{urlencode(query)}")

    def request_id(response: httpx.Response) -> str:
        assert response.status_code == 303, response.text
        location = response.headers["location"]
        assert location.startswith("/oauth/consent/"), location
        return location.rsplit("/", 1)[1]

    def allow(rid: str) -> str:
        asked = httpx.get(f"{base}/api/oauth/requests/{rid}", headers=admin(args))
        assert asked.status_code == 200, asked.text
        answer = httpx.post(f"{base}/api/oauth/requests/{rid}", headers=admin(args), json={"decision": "allow", "csrf": asked.json()["csrf"]})
        assert answer.status_code == 200, answer.text
        back = parse_qs(urlparse(answer.json()["redirect"]).query)
        assert back["iss"] == [base] and back["state"] == ["s1"], back
        return back["code"][0]

    def exchange(code: str, verifier: str) -> httpx.Response:
        return token_request(base, {"grant_type": "authorization_code", "code": code, "client_id": client_id,
                                    "redirect_uri": redirect_uri, "code_verifier": verifier, "resource": resource})

    # A redirect URI the client did not register: a page, never a redirect.
    _, challenge = pkce()
    wrong = authorize(challenge, redirect="http://127.0.0.1:9/elsewhere")
    assert wrong.status_code == 400 and "location" not in wrong.headers, wrong.headers
    assert "redirect_uri is not one this app registered" in wrong.text, wrong.text
    wrong = authorize(challenge, redirect="https://attacker.example/callback")
    assert wrong.status_code == 400 and "location" not in wrong.headers, wrong.headers
    ok("an unregistered redirect_uri gets a 400 page and no redirect")

    # A forged answer (no CSRF token, or a wrong one): 403, and the request is still answerable.
    verifier, challenge = pkce()
    rid = request_id(authorize(challenge))
    for body in ({"decision": "allow"}, {"decision": "allow", "csrf": "forged"}):
        forged = httpx.post(f"{base}/api/oauth/requests/{rid}", headers=admin(args), json=body)
        assert forged.status_code == 403, f"{body}: {forged.status_code} {forged.text}"
    code = allow(rid)
    ok("a consent answer without the CSRF token is 403 and changes nothing (the request is answered after)")

    # A wrong PKCE verifier.
    bad = exchange(code, pkce()[0])
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_grant", bad.text
    missing = token_request(base, {"grant_type": "authorization_code", "code": code, "client_id": client_id, "redirect_uri": redirect_uri})
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_request", missing.text
    ok("a wrong or missing code_verifier gets invalid_grant / invalid_request")

    # A code used twice: the second is refused, and the first tokens are revoked.
    verifier, challenge = pkce()
    code = allow(request_id(authorize(challenge)))
    first = exchange(code, verifier)
    assert first.status_code == 200, first.text
    access = first.json()["access_token"]
    assert mcp_status(resource, access).status_code == 200
    second = exchange(code, verifier)
    assert second.status_code == 400 and second.json()["error"] == "invalid_grant", second.text
    assert mcp_status(resource, access).status_code == 401, "the first tokens outlived the reused code"
    ok("a code used twice gets invalid_grant and revokes the tokens it gave")

    # A metadata document named by a host name that resolves to a private address.
    _, challenge = pkce()
    named = authorize(challenge, cid=f"https://localhost:{urlparse(args.cimd_base).port}/python-named.json", at=args.strict_url)
    assert named.status_code == 400 and "location" not in named.headers, named.headers
    assert "localhost resolves to a private address" in named.text, named.text
    ok("a client_id URL whose name resolves to a private address is refused with a page")


async def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("url", "strict-url", "token", "docs", "node", "consent", "cimd-dir", "cimd-base", "cimd-log"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()

    # The 401 that starts it all: the challenge names the endpoint's metadata and the scope.
    challenge = httpx.post(f"{args.url}/mcp/ops", json={})
    assert challenge.status_code == 401, challenge.status_code
    expected = f'Bearer resource_metadata="{args.url}/.well-known/oauth-protected-resource/mcp/ops", scope="read write"'
    assert challenge.headers["www-authenticate"] == expected, challenge.headers
    ok("an unauthenticated /mcp/ops gets 401 with resource_metadata and scope")

    await flow_deny(args)
    await flow_dcr(args)
    await flow_cimd(args)
    await flow_private_refused(args)
    negatives(args)
    ok("all checks passed")


asyncio.run(main())
