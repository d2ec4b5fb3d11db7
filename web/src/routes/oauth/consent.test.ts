import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/client";
import { EXPIRED, accessSentence, clientKind, consentFailure, grantedAccess, localhostWarning, unavailable } from "./consent";

describe("grantedAccess", () => {
  it("narrows write to read when asked, and never widens read", () => {
    expect(grantedAccess("write", false)).toBe("write");
    expect(grantedAccess("write", true)).toBe("read");
    expect(grantedAccess("read", false)).toBe("read");
    expect(grantedAccess("read", true)).toBe("read");
  });
});

describe("accessSentence", () => {
  it("says writing only for write, naming the folder", () => {
    expect(accessSentence("write", "notes/work")).toContain("write, edit, move and delete");
    expect(accessSentence("write", "notes/work")).toContain("notes/work");
    expect(accessSentence("read", "notes")).toContain("cannot change");
    expect(accessSentence("read", "notes")).not.toContain("write");
  });
});

describe("clientKind", () => {
  it("names a metadata document's host, and says a registered name is the app's own claim", () => {
    expect(clientKind({ kind: "metadata_document", id: "https://claude.ai/oauth/client.json" })).toBe("Described by a document at claude.ai");
    expect(clientKind({ kind: "metadata_document", id: "not a url" })).toBe("Described by a client metadata document");
    expect(clientKind({ kind: "registered", id: "c_123" })).toContain("its own claim");
  });
});

describe("localhostWarning", () => {
  it("warns only when the answer comes back to this computer", () => {
    expect(localhostWarning({ localhost_only: true })).toContain("localhost");
    expect(localhostWarning({ localhost_only: false })).toBeNull();
  });
});

describe("consentFailure", () => {
  it("reads a 404 as expired or answered, and anything else as the server's message", () => {
    expect(consentFailure(new ApiError(404, "no such request"))).toBe(EXPIRED);
    expect(consentFailure(new ApiError(403, "Forbidden: the consent form is stale"))).toBe("Forbidden: the consent form is stale");
    expect(consentFailure(new Error("Server unreachable"))).toBe("Server unreachable");
  });
});

describe("unavailable", () => {
  it("is the server's problem when the endpoint is not available, else null", () => {
    expect(unavailable({ available: false, problem: 'There is no folder "old" with MCP turned on.' })).toBe('There is no folder "old" with MCP turned on.');
    expect(unavailable({ available: false })).toBe("The folder it asks for is not available.");
    expect(unavailable({ available: true, problem: null })).toBeNull();
  });
});
