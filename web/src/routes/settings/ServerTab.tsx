//! Settings → Server: the index's status (ready, version, size, last sync, role, the first
//! index's progress), its settings and the search defaults, each saying whether it was saved here
//! or comes from its variable, and Edit settings.
import { useState } from "react";
import { Settings2 } from "lucide-react";
import { useStatus } from "../../api/hooks";
import type { Status } from "../../api/client";
import { Button } from "../../components/ui/button";
import { Badge, ErrorCard, Skeletons } from "../../components/ui/states";
import { ago, plural } from "../../lib/time";
import { indexState } from "../../shell/IndexStatus";
import { EditSettingsDialog } from "./EditSettingsDialog";
import { floorTooLow, unrelatedScore } from "./folders";
import { LanguageNoticeCard } from "./LanguageNotice";
import { Card, Note, Row, Rows, onOff } from "./parts";
import { ENV, HOOK_FIELDS, sourceOf } from "./settingsForm";

export function ServerTab() {
  const status = useStatus();
  const [editing, setEditing] = useState(false);
  if (status.isPending) return <Skeletons rows={8} label="Loading the server's settings" />;
  if (status.isError) return <ErrorCard error={status.error} onRetry={() => void status.refetch()} />;
  const s = status.data;
  // PATCH /api/settings is refused under read-only (403); a reader may change all but the embedder.
  const canEdit = !s.read_only;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start gap-3">
        <p className="min-w-0 flex-1 text-sm text-zinc-600 dark:text-zinc-400">
          Read from environment variables when the server starts. What is saved here wins over the variable, at once and after a restart, until it is cleared.
        </p>
        {canEdit && (
          <Button variant="primary" onClick={() => setEditing(true)}>
            <Settings2 className="size-4" aria-hidden /> Edit settings
          </Button>
        )}
      </div>
      {s.settings.saved_error && <Note>The saved settings are ignored: {s.settings.saved_error}</Note>}
      <LanguageNoticeCard status={s} canEdit={canEdit} />
      <IndexStatusCard status={s} />
      <IndexSettingsCard status={s} />
      <SearchDefaultsCard status={s} />
      {editing && <EditSettingsDialog status={s} onOpenChange={setEditing} />}
    </div>
  );
}

function IndexStatusCard({ status: s }: { status: Status }) {
  const { busy, line } = indexState(s);
  const p = s.progress;
  const last = s.last_sync;
  const badge = s.error ? <Badge tone="red">Failed</Badge> : s.ready ? <Badge tone="green">Ready</Badge> : <Badge tone="amber">Loading</Badge>;
  return (
    <Card title="Index status" badge={badge} subtitle={`ragdown ${s.version}`}>
      {s.error && (
        <div className="py-3">
          <ErrorCard error={s.error} />
        </div>
      )}
      {p?.running && p.files_total > 0 && (
        <div className="space-y-1 py-3">
          <div className="text-sm">{line}</div>
          <div className="h-1.5 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800" role="progressbar" aria-label="Indexing" aria-valuemin={0} aria-valuemax={p.files_total} aria-valuenow={p.files_done}>
            <div className="h-full bg-amber-500 transition-all" style={{ width: `${(p.files_done / p.files_total) * 100}%` }} />
          </div>
          <div className="text-xs text-zinc-500 dark:text-zinc-400">{plural(p.chunks_done, "chunk")} so far</div>
        </div>
      )}
      <Rows>
        {!s.ready && !s.error && <Row label="State">{line}</Row>}
        {s.ready && (
          <Row label="Indexed" hint={busy ? line : undefined}>
            {plural(s.files ?? 0, "file")} · {plural(s.chunks ?? 0, "chunk")}
          </Row>
        )}
        {last && (
          <Row label="Last sync">
            {last.added} added, {last.updated} updated, {last.removed} removed · {ago(Date.parse(last.at))} · {last.ms.toLocaleString()} ms
          </Row>
        )}
        {s.role && (
          <Row
            label="Role"
            hint={
              s.role === "reader"
                ? "Another process owns the index and keeps it in sync; this one reads it. Change the embedder there."
                : "This process owns the index and keeps it in sync with the folder."
            }
          >
            {s.role}
          </Row>
        )}
        {s.embedder && <Row label="Index embedder">{s.embedder}</Row>}
      </Rows>
    </Card>
  );
}

function IndexSettingsCard({ status: s }: { status: Status }) {
  const v = s.settings;
  const saved = v.saved;
  return (
    <Card title="Index settings">
      <Rows>
        <Row label="Docs directory" source={`From ${ENV.docs_dir}`}>
          <code className="font-mono text-xs">{s.docs_dir ?? "—"}</code>
        </Row>
        <Row label="Embedder" hint="A new one rebuilds the index, and wants its own hook minimum score." source={sourceOf(saved.embedder, ENV.embedder)}>
          {v.embedder ?? "granite-small (the default)"}
        </Row>
        <Row label="Read-only" hint="On, the MCP write tools are hidden, and uploads, deletes and folder changes other than settings are refused." source={`From ${ENV.read_only}`}>
          {onOff(s.read_only)}
        </Row>
        <Row label="Watch for changes" hint="Off, the index syncs at start and on ragdown_reindex only." source={sourceOf(saved.watch, ENV.watch)}>
          {onOff(v.watch)}
        </Row>
        <Row label="Characters per search hit" hint="For the search tools' text output; a cut names the ragdown_read_doc call that returns the rest." source={sourceOf(saved.text_limit, ENV.text_limit)}>
          {v.text_limit.toLocaleString()}
        </Row>
        <Row label="Sections per document" hint="Most sections of one document a search returns; the rest come from other documents." source={sourceOf(saved.max_per_document, ENV.max_per_document)}>
          {v.max_per_document === 0 ? "No cap" : v.max_per_document}
        </Row>
        <Row label="Follow links" hint="How many of a search's best hits have their wikilinks followed: each linked document's closest sections come right after the hit." source={sourceOf(saved.follow_links, ENV.follow_links)}>
          {v.follow_links === 0 ? "Off" : v.follow_links}
        </Row>
        <Row label="Every folder at /mcp" hint="Bare /mcp serves every folder with MCP on as one server, where agents can also make folders." source={sourceOf(saved.root_mcp, ENV.root_mcp)}>
          {onOff(v.root_mcp)}
        </Row>
        <Row label="Query log" hint="Logs each search, hook call and read on the server, for the Usage tab. Never sent anywhere." source={sourceOf(saved.query_log, ENV.query_log)}>
          {onOff(v.query_log)}
        </Row>
      </Rows>
    </Card>
  );
}

function SearchDefaultsCard({ status: s }: { status: Status }) {
  const hook = s.settings.hook;
  const saved = s.settings.saved.hook;
  const env = s.settings.env.hook;
  const unrelated = unrelatedScore(s);
  const low = floorTooLow(hook.min_score, unrelated);
  const show = (key: (typeof HOOK_FIELDS)[number]["key"]) => {
    const value = hook[key];
    if (value == null) return "—";
    if (key === "min_ratio" && value === 0) return "Off";
    return value.toLocaleString();
  };
  const source = (f: (typeof HOOK_FIELDS)[number]) =>
    saved?.[f.key] == null && env[f.key] == null ? `From the embedder (${f.env} unset)` : sourceOf(saved?.[f.key], f.env);
  return (
    <Card title="Search defaults" subtitle="What ragdown_context injects before each prompt when the hook passes no arguments of its own. A folder's own defaults win over these.">
      {low && (
        <div className="pt-3">
          <Note>
            The minimum score {hook.min_score} is at or below {unrelated}, what unrelated prompts reach with this embedder: the hook injects documents that do not answer.
          </Note>
        </div>
      )}
      <Rows>
        {HOOK_FIELDS.map((f) => (
          <Row key={f.key} label={f.label} hint={f.hint} source={source(f)} flagged={f.key === "min_score" && low}>
            {show(f.key)}
          </Row>
        ))}
      </Rows>
    </Card>
  );
}
