"""Plain JSON-RPC to ragdownd over stdio or streamable HTTP, in either protocol era.

The MCP Python SDK speaks 2025-11-25 only, and normalises every resource URI it sends (pydantic's
AnyUrl turns `ragdown:///ops/../x.md` into `ragdown:///x.md`), so it can neither speak the
2026-07-28 protocol (each request carrying its version in `_meta`, no `initialize`) nor send a
hostile URI as written. This client does both, with the standard library alone.
"""

import json
import subprocess
import urllib.error
import urllib.request

V2026 = "2026-07-28"
V2025 = "2025-11-25"
CLIENT = {"name": "ragdown-interop-raw", "version": "0"}


class RawClient:
    """One endpoint in one era: `stdio` (a child process) or `url` (stateless HTTP)."""

    def __init__(self, era: str, *, command=None, env=None, url=None, token=None):
        self.era, self.url, self.token, self.next_id = era, url, token, 1
        self.proc = None
        if command:
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True
            )
        if era == V2025:
            init = self.request("initialize", {"protocolVersion": V2025, "capabilities": {}, "clientInfo": CLIENT})
            assert "result" in init, init
            self.notify("notifications/initialized")

    def close(self) -> None:
        if self.proc:
            self.proc.kill()
            self.proc.wait()

    def _message(self, method: str, params: dict, with_id: bool) -> dict:
        params = dict(params)
        if self.era == V2026:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": V2026,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": CLIENT,
            }
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if with_id:
            message["id"] = self.next_id
            self.next_id += 1
        return message

    def notify(self, method: str) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if self.proc:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        else:
            self._post(message)

    def request(self, method: str, params: dict | None = None) -> dict:
        """The whole JSON-RPC answer: `result` or `error`."""
        message = self._message(method, params or {}, True)
        if not self.proc:
            return self._post(message)
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == message["id"]:
                return answer

    def _post(self, message: dict) -> dict:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {self.token}",
        }
        if self.era == V2026:
            # The 2026-07-28 transport names the method, and the tool or resource, in headers too.
            headers["MCP-Protocol-Version"] = V2026
            headers["Mcp-Method"] = message["method"]
            name = message["params"].get("name") or message["params"].get("uri")
            if name and message["method"] in ("tools/call", "resources/read"):
                headers["Mcp-Name"] = name
        request = urllib.request.Request(self.url, json.dumps(message).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                body = response.read()
        except urllib.error.HTTPError as err:
            body = err.read()
        return json.loads(body) if body else {}
