"""The official MCP Python SDK client against ragdownd, over stdio and over streamable HTTP; and,
with raw JSON-RPC (raw_client.py), the 2026-07-28 protocol and hostile resource URIs that the SDK
cannot send, in both protocol eras."""

import argparse
import asyncio
import base64
import os
import sys
import tempfile

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.types import (
    ResourceListChangedNotification,
    ResourceTemplateReference,
    ResourceUpdatedNotification,
    ServerNotification,
)
from pydantic import AnyUrl

from raw_client import V2025, V2026, RawClient

EXPECTED_TOOLS = {
    "ragdown_recall", "ragdown_read_doc", "ragdown_stats", "ragdown_reindex",
    "ragdown_remember", "ragdown_write", "ragdown_edit", "ragdown_delete",
    "ragdown_list", "ragdown_backlinks", "ragdown_move", "ragdown_context",
}
STRUCTURED = {"ragdown_recall", "ragdown_list", "ragdown_backlinks", "ragdown_stats"}
PNG = b"\x89PNG\r\n\x1a\n\x00\xff\xfe interop image"
SECRET = "TOP-SECRET"
BACKUPS = "ragdown:///ops/backups.md"
IMAGE = "ragdown:///ops/img/diagram.png"
# Refused everywhere, and nothing of what they name is shown.
HOSTILE = [
    "ragdown:///../outside.md",
    "ragdown:///ops/../../outside/secret.md",
    "ragdown:///ops/%2e%2e/%2e%2e/secret.md",
    "ragdown:///ops%2F..%2F..%2Fsecret.md",
    "ragdown:///ops/.hidden.md",
    "ragdown:///ops/%2Ehidden.md",
    "ragdown:///ops/link.md",
    "ragdown:////etc/passwd",
    "file:///etc/passwd",
]


def add_fixtures(docs: str) -> None:
    """An image beside the documents, a dot-file, a symlink to a file outside, and a folder
    without MCP: none but the image may ever be read through the ops endpoint."""
    os.makedirs(f"{docs}/ops/img", exist_ok=True)
    with open(f"{docs}/ops/img/diagram.png", "wb") as f:
        f.write(PNG)
    with open(f"{docs}/ops/.hidden.md", "w") as f:
        f.write(f"# Hidden\n\n{SECRET} dot-file\n")
    outside = tempfile.mkdtemp(prefix="ragdown-outside.")
    with open(f"{outside}/secret.md", "w") as f:
        f.write(f"# Secret\n\n{SECRET} outside the docs\n")
    if not os.path.lexists(f"{docs}/ops/link.md"):
        os.symlink(f"{outside}/secret.md", f"{docs}/ops/link.md")
    os.makedirs(f"{docs}/private", exist_ok=True)
    with open(f"{docs}/private/secret.md", "w") as f:
        f.write(f"# Private\n\n{SECRET} human-only folder\n")


async def check_tools(session: ClientSession, where: str, path: str) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == EXPECTED_TOOLS, f"{where}: tools {sorted(tools)}"
    assert {name for name, tool in tools.items() if tool.outputSchema} == STRUCTURED, where
    result = await session.call_tool("ragdown_recall", {"query": "pg_restore twice"})
    text = result.content[0].text
    assert not result.isError and text.startswith(f"[1] {path}:"), f"{where}: {text}"
    # The SDK itself validates structuredContent against outputSchema; checked here again.
    for name, arguments in [
        ("ragdown_recall", {"query": "pg_restore twice"}),
        ("ragdown_list", {}),
        ("ragdown_backlinks", {"path": path}),
        ("ragdown_stats", {}),
    ]:
        answer = await session.call_tool(name, arguments)
        assert not answer.isError and answer.structuredContent is not None, f"{where} {name}: {answer}"
        jsonschema.validate(answer.structuredContent, tools[name].outputSchema)
    bad = await session.call_tool("ragdown_recall", {"query": "x", "top_k": 0})
    assert bad.isError and "top_k" in bad.content[0].text, f"{where}: {bad}"
    # A write, then the written text is found at once.
    note = f"sdk-{where.split()[0].lower()}.md"
    written = await session.call_tool("ragdown_write", {"path": note, "text": f"# Written by the SDK\n\nVia {where}."})
    assert not written.isError and written.content[0].text.startswith("created "), f"{where}: {written}"
    found = await session.call_tool("ragdown_recall", {"query": f"written by the SDK via {where}", "top_k": 1})
    assert note in found.content[0].text, f"{where}: {found.content[0].text}"
    gone = await session.call_tool("ragdown_delete", {"path": note})
    assert not gone.isError, f"{where}: {gone}"


async def check_resources(session: ClientSession, where: str, rel: str, docs: str) -> None:
    """`rel` is the endpoint's prefix of `ops/...` paths: `ops/` over stdio, empty on /mcp/ops."""
    listed = {str(r.uri): r for r in (await session.list_resources()).resources}
    document, image = listed[BACKUPS], listed[IMAGE]
    assert (document.name, document.title, document.mimeType) == (f"{rel}backups.md", "Backups", "text/markdown"), where
    assert image.mimeType == "image/png", f"{where}: {image}"
    assert not any(".hidden" in uri or "link.md" in uri for uri in listed), f"{where}: {sorted(listed)}"
    with open(f"{docs}/ops/backups.md") as f:
        on_disk = f.read()
    text = (await session.read_resource(AnyUrl(BACKUPS))).contents[0]
    assert text.text == on_disk and text.mimeType == "text/markdown", f"{where}: {text}"
    blob = (await session.read_resource(AnyUrl(IMAGE))).contents[0]
    assert base64.b64decode(blob.blob) == PNG and blob.mimeType == "image/png", f"{where}: {blob}"
    templates = (await session.list_resource_templates()).resourceTemplates
    prefix = "ragdown:///" + ("" if rel else "ops/")
    assert [t.uriTemplate for t in templates] == [f"{prefix}{{+path}}", f"{prefix}{{+path}}#{{heading}}"], where
    section_uri = templates[1].uriTemplate.replace("{+path}", f"{rel}backups.md").replace("{heading}", "Restore")
    section = (await session.read_resource(AnyUrl(section_uri))).contents[0]
    assert section.text == on_disk[on_disk.index("## Restore"):], f"{where}: {section}"
    reference = ResourceTemplateReference(type="ref/resource", uri=templates[0].uriTemplate)
    done = await session.complete(reference, {"name": "path", "value": f"{rel}back"})
    assert done.completion.values == [f"{rel}backups.md"], f"{where}: {done}"
    print(f"ok: python sdk resources over {where}", file=sys.stderr)


async def check_subscription(session: ClientSession, docs: str, notes: list) -> None:
    """A file written on disk, by no tool, once the index's sync has seen it (ragdown_reindex here,
    the watcher being off): the subscriber hears it was updated, and that the list changed."""
    uri = "ragdown:///ops/sdk-watched.md"
    await session.subscribe_resource(AnyUrl(uri))
    with open(f"{docs}/ops/sdk-watched.md", "w") as f:
        f.write("# Watched\n\nWritten on disk, not by a tool.\n")
    try:
        await session.call_tool("ragdown_reindex", {})
        for _ in range(600):
            updated = any(isinstance(n, ResourceUpdatedNotification) and str(n.params.uri) == uri for n in notes)
            listed = any(isinstance(n, ResourceListChangedNotification) for n in notes)
            if updated and listed:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"stdio: no resources/updated and list_changed for {uri}: {notes}")
        await session.unsubscribe_resource(AnyUrl(uri))
    finally:
        os.remove(f"{docs}/ops/sdk-watched.md")
        before = sum(isinstance(n, ResourceListChangedNotification) for n in notes)
        await session.call_tool("ragdown_reindex", {})
        # Its list_changed is read before the session closes: one arriving during the close
        # breaks the SDK's stdio reader (BrokenResourceError).
        for _ in range(600):
            if sum(isinstance(n, ResourceListChangedNotification) for n in notes) > before:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"stdio: no list_changed after removing the watched file: {notes}")
    print("ok: python sdk resource subscription over stdio", file=sys.stderr)


def check_raw(client: RawClient, where: str, docs: str, others: list[str]) -> None:
    """Resources and structured results in raw JSON-RPC, and every hostile URI refused."""
    if client.era == V2026:
        discover = client.request("server/discover")
        capabilities = discover["result"]["capabilities"]
        assert "resources" in capabilities and "completions" in capabilities, f"{where}: {discover}"
    listed = [r["uri"] for r in client.request("resources/list")["result"]["resources"]]
    assert BACKUPS in listed and IMAGE in listed, f"{where}: {listed}"
    with open(f"{docs}/ops/backups.md") as f:
        on_disk = f.read()
    read = client.request("resources/read", {"uri": BACKUPS})
    assert read["result"]["contents"][0]["text"] == on_disk, f"{where}: {read}"
    tools = {t["name"]: t for t in client.request("tools/list")["result"]["tools"]}
    answer = client.request("tools/call", {"name": "ragdown_list", "arguments": {}})
    jsonschema.validate(answer["result"]["structuredContent"], tools["ragdown_list"]["outputSchema"])
    assert SECRET not in str(client.request("tools/list")), where
    for uri in HOSTILE + others:
        refused = client.request("resources/read", {"uri": uri})
        assert "error" in refused and "result" not in refused, f"{where}: {uri} was read: {refused}"
        assert SECRET not in str(refused), f"{where}: {uri}: {refused}"
    print(f"ok: raw json-rpc {client.era} resources, structured results and hostile URIs over {where}", file=sys.stderr)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--docs", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    args = parser.parse_args()
    add_fixtures(args.docs)

    env = {
        "RAGDOWN_DOCS_DIR": args.docs,
        "RAGDOWN_DATA_DIR": args.data,
        "RAGDOWN_EMBEDDER": "hash",
        "RAGDOWN_WATCH": "false",
    }
    params = StdioServerParameters(command=args.bin, args=["stdio"], env=env)
    notes: list = []

    async def on_message(message) -> None:
        if isinstance(message, ServerNotification):
            notes.append(message.root)

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            resources = init.capabilities.resources
            assert resources.subscribe and resources.listChanged, f"stdio: {init.capabilities}"
            await check_tools(session, "stdio", "ops/backups.md")
            await check_resources(session, "stdio", "ops/", args.docs)
            await check_subscription(session, args.docs, notes)
            print(f"ok: python sdk over stdio ({init.serverInfo.name})", file=sys.stderr)

    headers = {"Authorization": f"Bearer {args.token}"}
    async with streamablehttp_client(args.url, headers=headers) as (read, write, _):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            await check_tools(session, "streamable HTTP", "backups.md")
            await check_resources(session, "streamable HTTP", "", args.docs)
            print(f"ok: python sdk over streamable HTTP ({init.serverInfo.name})", file=sys.stderr)

    # Another folder's document, through the ops endpoint: the same refusal as a missing one.
    other_folder = ["ragdown:///private/secret.md", "ragdown:///ops/../private/secret.md"]
    for era in (V2025, V2026):
        stdio = RawClient(era, command=[args.bin, "stdio"], env={**os.environ, **env})
        try:
            check_raw(stdio, "stdio", args.docs, [])
        finally:
            stdio.close()
        check_raw(RawClient(era, url=args.url, token=args.token), "streamable HTTP", args.docs, other_folder)


asyncio.run(main())
