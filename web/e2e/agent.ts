// An agent for the e2e tests, over a folder's real streamable-HTTP endpoint: its changes (tool
// calls, each in the agent session the `Mcp-Session-Id` header names, as a client that keeps a
// session sends it), and what a token lets it list.
import { TOKEN, type Server } from "./fixtures";

/** Calls `tool` at `/mcp/<folder>` in `session`; throws when the call fails or the tool says error. */
export async function agentCall(server: Server, folder: string, session: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${server.url}/mcp/${folder}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      Accept: "application/json, text/event-stream",
      "Content-Type": "application/json",
      "Mcp-Session-Id": session,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${tool}: ${response.status} ${text}`);
  const answer = JSON.parse(text) as { result?: { isError?: boolean; content?: { text?: string }[] }; error?: unknown };
  const said = answer.result?.content?.[0]?.text ?? "";
  if (!answer.result || answer.result.isError) throw new Error(`${tool}: ${text}`);
  return said;
}

/** `ragdown_edit`: one exact replacement in `path` (inside the folder). */
export function agentEdit(server: Server, folder: string, session: string, path: string, from: string, to: string) {
  return agentCall(server, folder, session, "ragdown_edit", { path, edits: [{ old_text: from, new_text: to }] });
}

/** `tools/list` at `/mcp/<folder>` with `token`: the status, and the tools' names when it answered. */
export async function toolsWith(server: Server, folder: string, token: string): Promise<{ status: number; tools: string[] }> {
  const response = await fetch(`${server.url}/mcp/${folder}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  if (!response.ok) return { status: response.status, tools: [] };
  const answer = (await response.json()) as { result: { tools: { name: string }[] } };
  return { status: response.status, tools: answer.result.tools.map((t) => t.name) };
}
