//! Copy MCP config: the `claude mcp add` line and the `mcpServers` JSON entry that connect an
//! agent to one folder's MCP address, with the kept bearer token when there is one. Pure, so the
//! exact text users paste into a terminal or a config file is unit-tested.

export interface McpTarget {
  /** The page's origin, e.g. `http://localhost:3300`. */
  origin: string;
  /** The folder's name. */
  name: string;
  /** The folder's `mcp_path` from the server (`/mcp/<name>`, percent-encoded). */
  mcpPath: string;
  /** The bearer token kept in this browser, or null. */
  token: string | null;
}

/** The MCP server's name in the agent's config: `ragdown-<folder>`, as the server names itself. */
export function serverName(name: string): string {
  return `ragdown-${name}`;
}

/** The folder's full MCP address. */
export function mcpUrl(origin: string, mcpPath: string): string {
  return origin.replace(/\/+$/, "") + (mcpPath.startsWith("/") ? mcpPath : `/${mcpPath}`);
}

/** One shell word: as it is when it is plain, otherwise in single quotes. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The header argument, in double quotes as people write it unless the token needs more. */
function headerArg(token: string): string {
  const header = `Authorization: Bearer ${token}`;
  return /^[A-Za-z0-9._~+/=-]+$/.test(token) ? `"${header}"` : shellWord(header);
}

/** `claude mcp add --transport http ragdown-<name> <url> [--header "Authorization: Bearer <token>"]`. */
export function claudeCommand(target: McpTarget): string {
  const parts = ["claude mcp add --transport http", shellWord(serverName(target.name)), shellWord(mcpUrl(target.origin, target.mcpPath))];
  if (target.token) parts.push(`--header ${headerArg(target.token)}`);
  return parts.join(" ");
}

/** The `mcpServers` entry for a client's JSON config (Claude Desktop, Cursor, …), pretty-printed. */
export function mcpServersJson(target: McpTarget): string {
  const entry: { type: "http"; url: string; headers?: Record<string, string> } = {
    type: "http",
    url: mcpUrl(target.origin, target.mcpPath),
  };
  if (target.token) entry.headers = { Authorization: `Bearer ${target.token}` };
  return JSON.stringify({ mcpServers: { [serverName(target.name)]: entry } }, null, 2);
}
