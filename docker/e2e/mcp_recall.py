"""One ragdown_recall over streamable HTTP with the official MCP Python SDK, for docker/e2e.sh.

    python mcp_recall.py URL TOKEN QUERY   # prints the tool's text; exit 1 when it is an error
"""

import asyncio
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def recall(url: str, token: str, query: str) -> int:
    headers = {"Authorization": f"Bearer {token}"}
    async with streamablehttp_client(url, headers=headers) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("ragdown_recall", {"query": query, "top_k": 3})
    print(result.content[0].text)
    return 1 if result.isError else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(recall(*sys.argv[1:4])))
