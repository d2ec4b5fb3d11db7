// A Japanese note for the browser tests beside examples/vault's own Chinese, Japanese and Korean
// notes (notes/cjk/数据库备份.md, 障害対応手順.md, 백업 절차.md): a katakana title with an emoji,
// written through the API into a test's own copy of the vault.
import type { Server } from "./fixtures";

export const CJK_NOTES: Record<string, string> = {
  "notes/cjk/backup-ja.md": `# バックアップと復元 🗄️

バックアップは毎晩取得し、月に一度は復元を試す。
`,
};

/** Writes the CJK notes into `server`'s vault, indexed when this returns. */
export async function addCjkNotes(server: Server): Promise<void> {
  for (const [path, text] of Object.entries(CJK_NOTES)) await server.api("POST", "/api/doc", { path, text, overwrite: true });
}
