import { describe, expect, it } from "vitest";
import { claudeLine, expiresMs, expiryLabel, lastUsedLabel, levelLabel, scopeOf } from "./access";

describe("scopeOf", () => {
  it("is the folders ticked", () => {
    expect(scopeOf(["notes", "work"], "")).toEqual({ scope: ["notes", "work"] });
  });

  it("is one subfolder of the one folder ticked, cleaned", () => {
    expect(scopeOf(["notes"], " /projects\\ragdown/ ")).toEqual({ scope: ["notes/projects/ragdown"] });
  });

  it("refuses nothing ticked, a subfolder of several folders, and paths that climb or hide", () => {
    expect(scopeOf([], "")).toHaveProperty("error");
    expect(scopeOf(["notes", "work"], "a")).toHaveProperty("error");
    expect(scopeOf(["notes"], "../work")).toHaveProperty("error");
    expect(scopeOf(["notes"], ".obsidian")).toHaveProperty("error");
  });
});

describe("expiresMs", () => {
  it("adds whole days, or none for never", () => {
    expect(expiresMs("7", 1_000)).toBe(1_000 + 7 * 86_400_000);
    expect(expiresMs("", 1_000)).toBeUndefined();
    expect(expiresMs("soon", 1_000)).toBeUndefined();
  });
});

describe("labels", () => {
  it("say the access, the expiry and the last use", () => {
    expect(levelLabel("read")).toBe("Read");
    expect(levelLabel("write")).toBe("Read + write");
    expect(expiryLabel({ expires_ms: null, expired: false })).toBe("Never");
    expect(expiryLabel({ expires_ms: 1, expired: true })).toBe("Expired");
    expect(lastUsedLabel(null)).toBe("Never");
    expect(lastUsedLabel(1_000, 1_000 + 5 * 60_000)).toBe("5 min ago");
  });
});

describe("claudeLine", () => {
  it("points the agent at the token's endpoint with the token as its header", () => {
    expect(claudeLine("http://localhost:3000/", "notes/my dir", "rdt_abc")).toBe(
      'claude mcp add --transport http ragdown-notes http://localhost:3000/mcp/notes/my%20dir --header "Authorization: Bearer rdt_abc"',
    );
  });
});
