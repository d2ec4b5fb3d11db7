"""The official MCP Python SDK client against ragdownd, over stdio and over streamable HTTP."""

import argparse
import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

EXPECTED_TOOLS = {
    "ragdown_recall", "ragdown_read_doc", "ragdown_stats", "ragdown_reindex",
    "ragdown_remember", "ragdown_write", "ragdown_edit", "ragdown_delete",
    "ragdown_list", "ragdown_backlinks", "ragdown_move", "ragdown_context",
}


async def check(session: ClientSession, where: str, path: str) -> None:
    init = await session.initialize()
    tools = {tool.name for tool in (await session.list_tools()).tools}
    assert tools == EXPECTED_TOOLS, f"{where}: tools {sorted(tools)}"
    result = await session.call_tool("ragdown_recall", {"query": "pg_restore twice"})
    text = result.content[0].text
    assert not result.isError and text.startswith(f"[1] {path}:"), f"{where}: {text}"
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
    print(f"ok: python sdk over {where} ({init.serverInfo.name})", file=sys.stderr)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--docs", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    args = parser.parse_args()

    params = StdioServerParameters(
        command=args.bin,
        args=["stdio"],
        env={
            "RAGDOWN_DOCS_DIR": args.docs,
            "RAGDOWN_DATA_DIR": args.data,
            "RAGDOWN_EMBEDDER": "hash",
            "RAGDOWN_WATCH": "false",
        },
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await check(session, "stdio", "ops/backups.md")

    headers = {"Authorization": f"Bearer {args.token}"}
    async with streamablehttp_client(args.url, headers=headers) as (read, write, _):
        async with ClientSession(read, write) as session:
            await check(session, "streamable HTTP", "backups.md")


asyncio.run(main())
