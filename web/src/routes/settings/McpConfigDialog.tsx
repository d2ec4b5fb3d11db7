//! Copy MCP config ("Connect an agent to <title>"): the `claude mcp add` line and the
//! `mcpServers` JSON entry for one folder, each with a copy button, with the kept token's header.
import type { Folder } from "../../api/client";
import { Button } from "../../components/ui/button";
import { Dialog, DialogFooter } from "../../components/ui/dialog";
import { getToken } from "../../lib/token";
import { claudeCommand, mcpServersJson, type McpTarget } from "./mcpConfig";
import { CopyBlock, Note } from "./parts";

export function McpConfigDialog({ folder, onOpenChange }: { folder: Folder | null; onOpenChange: (open: boolean) => void }) {
  const target: McpTarget | null = folder ? { origin: window.location.origin, name: folder.name, mcpPath: folder.mcp_path, token: getToken() } : null;
  return (
    <Dialog
      open={!!folder}
      onOpenChange={onOpenChange}
      title={folder ? `Connect an agent to ${folder.title}` : "Connect an agent"}
      description="Paste one of these into the agent's setup: the command for Claude Code, or the entry for a client's JSON config."
      wide
    >
      {folder && target && (
        <div className="space-y-4">
          {!folder.mcp && (
            <Note>
              {folder.title} is human-only: this address answers only once Serve over MCP is on for it (Edit).
            </Note>
          )}
          <CopyBlock label="Claude Code command" text={claudeCommand(target)} />
          <CopyBlock label="mcpServers entry" text={mcpServersJson(target)} />
          {target.token ? (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">Both hold this browser's bearer token: keep them where only you can read them.</p>
          ) : (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">No token is kept in this browser, so neither sends one.</p>
          )}
        </div>
      )}
      <DialogFooter>
        <Button onClick={() => onOpenChange(false)}>Done</Button>
      </DialogFooter>
    </Dialog>
  );
}
