//! A folder's name as the server allows it (checked as it is typed, so a dialog can say what is
//! wrong before it asks), and the line that says what its MCP switch does.

/** The server's rule (`ragdownd/src/folders.rs`), kept in step with it. */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9 _.-]{0,63}$/;

/** Why `name` cannot name a new folder, or null when it can. `taken` lists the existing names. */
export function folderNameProblem(name: string, taken: readonly string[] = []): string | null {
  if (name === "") return "A name is required.";
  if (name.trim() !== name) return "No spaces at the start or the end.";
  if (name.length > 64) return "At most 64 characters.";
  if (name.startsWith(".")) return "It cannot start with a dot: dot-directories are never indexed.";
  if (!NAME.test(name)) return "Only letters, digits, spaces, '_', '.' and '-', starting with a letter, a digit or '_'.";
  if (name === "node_modules") return "node_modules is never indexed: pick another name.";
  if (taken.includes(name)) return `A folder named ${name} already exists.`;
  return null;
}

/** What the "Serve over MCP" switch means for the folder `name`. */
export function mcpDescription(on: boolean, name: string): string {
  return on ? `Agents reach it at /mcp/${name || "<name>"}.` : "Off, the folder is human-only: searchable here, but agents never see it.";
}
