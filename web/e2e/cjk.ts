// Chinese, Japanese and Korean notes for the browser tests, written through the API into a
// test's own copy of the vault (examples/vault itself is the server side's to change).
import type { Server } from "./fixtures";

export const CJK_NOTES: Record<string, string> = {
  "notes/cjk/zh.md": `---
tags: [备份, 数据库]
---
# 数据库备份

每天凌晨两点用 \`pg_dump\` 备份生产数据库，保留三十天。备份文件写入对象存储，并用校验和核对。

## 恢复

用 \`pg_restore\` 恢复到临时实例，核对行数后再切换流量。

## 监控

备份失败或超过一小时未完成时，告警发到值班频道。
`,
  "notes/cjk/ja.md": `# 障害対応手順

本番で障害が起きたら、まず影響範囲を確認し、当番チャンネルに報告する。

## 再起動

\`kubectl rollout restart\` でサービスを再起動する。再起動後はエラー率を 10 分間監視する。
`,
  "notes/cjk/ko.md": `# 백업 절차

매일 새벽 2시에 데이터베이스를 백업하고 30일 동안 보관한다.

## 복구

임시 인스턴스에 복구한 뒤 행 수를 확인한다.
`,
  "notes/cjk/backup-ja.md": `# バックアップと復元 🗄️

バックアップは毎晩取得し、月に一度は復元を試す。
`,
};

/** Writes the CJK notes into `server`'s vault, indexed when this returns. */
export async function addCjkNotes(server: Server): Promise<void> {
  for (const [path, text] of Object.entries(CJK_NOTES)) await server.api("POST", "/api/doc", { path, text, overwrite: true });
}
