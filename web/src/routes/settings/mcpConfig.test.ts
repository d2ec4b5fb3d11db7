import { describe, expect, it } from "vitest";
import { claudeCommand, mcpServersJson, mcpUrl, serverName, shellWord } from "./mcpConfig";

const base = { origin: "http://localhost:3300", name: "work", mcpPath: "/mcp/work", token: null };

describe("claudeCommand", () => {
  it("is the plain line without a token", () => {
    expect(claudeCommand(base)).toBe("claude mcp add --transport http ragdown-work http://localhost:3300/mcp/work");
  });

  it("adds the bearer header when a token is kept", () => {
    expect(claudeCommand({ ...base, token: "abc123" })).toBe(
      'claude mcp add --transport http ragdown-work http://localhost:3300/mcp/work --header "Authorization: Bearer abc123"',
    );
  });

  it("quotes a folder name with a space, and a token the shell would expand", () => {
    const line = claudeCommand({ ...base, name: "Work notes", mcpPath: "/mcp/Work%20notes", token: "a$b'c" });
    expect(line).toBe(
      "claude mcp add --transport http 'ragdown-Work notes' http://localhost:3300/mcp/Work%20notes --header 'Authorization: Bearer a$b'\\''c'",
    );
  });
});

describe("mcpServersJson", () => {
  it("has the http entry with the header only when there is a token", () => {
    expect(JSON.parse(mcpServersJson(base))).toEqual({ mcpServers: { "ragdown-work": { type: "http", url: "http://localhost:3300/mcp/work" } } });
    expect(JSON.parse(mcpServersJson({ ...base, token: "t0k" }))).toEqual({
      mcpServers: { "ragdown-work": { type: "http", url: "http://localhost:3300/mcp/work", headers: { Authorization: "Bearer t0k" } } },
    });
  });
});

describe("helpers", () => {
  it("joins the origin and path with one slash", () => {
    expect(mcpUrl("http://h:1/", "/mcp/a")).toBe("http://h:1/mcp/a");
    expect(mcpUrl("http://h:1", "mcp/a")).toBe("http://h:1/mcp/a");
  });
  it("names the server as the server names itself", () => {
    expect(serverName("notes")).toBe("ragdown-notes");
  });
  it("leaves plain words alone", () => {
    expect(shellWord("ragdown-a.b_c")).toBe("ragdown-a.b_c");
    expect(shellWord("")).toBe("''");
  });
});
