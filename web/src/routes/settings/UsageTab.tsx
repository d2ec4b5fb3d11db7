//! Settings → Usage: the query log summed up (`GET /api/query-log`). Headline figures, searches
//! and hook injections per day as charts, the share of searches that found nothing, and tables
//! of those queries and of the documents read most. Off, it says how to turn it on; empty, what
//! will show; and the log can be emptied.
import { useState } from "react";
import { Link } from "@tanstack/react-router";
import { ChartColumn, Trash2 } from "lucide-react";
import { useQueryLog, useStatus } from "../../api/hooks";
import { useClearQueryLog, useUpdateSettings } from "../../api/mutations";
import { Button } from "../../components/ui/button";
import { Confirm } from "../../components/ui/dialog";
import { Empty, ErrorCard, Skeletons } from "../../components/ui/states";
import { splitPath } from "../../lib/paths";
import { ago, plural } from "../../lib/time";
import { messageOf, notify } from "../../lib/toast";
import { ShareMeter, StackedBars, Stat } from "./charts";
import { Card } from "./parts";
import { dailySeries, dayOf, hasAny, KIND_LABELS, percent, totalSearches, type QueryLogSummary } from "./usage";

export function UsageTab() {
  const log = useQueryLog<QueryLogSummary>();
  if (log.isPending) return <Skeletons rows={8} label="Loading the query log" />;
  if (log.isError) return <ErrorCard error={log.error} onRetry={() => void log.refetch()} />;
  const s = log.data;
  return (
    <div className="space-y-4">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        How search does on these documents, from the query log on the server: it holds queries, never document text, and is never sent anywhere.
      </p>
      {!s.enabled && <LogOff />}
      {s.entries === 0 ? (
        s.enabled && (
          <Empty title="Nothing logged yet">
            Each search by an agent (ragdown_recall), each prompt the hook sees (ragdown_context), each search here and each document read shows up here as it happens.
          </Empty>
        )
      ) : (
        // The chart's window ends on the day of the answer, so it rolls over as the log is refetched.
        <Summary s={s} today={dayOf(log.dataUpdatedAt)} />
      )}
    </div>
  );
}

function LogOff() {
  const status = useStatus();
  const update = useUpdateSettings();
  const readOnly = status.data?.read_only ?? false;
  // Once the log is on this card goes away, before the answer's refetch has landed: the toast
  // follows the promise, which outlives the card, not the card's callbacks.
  const turnOn = () =>
    void update.mutateAsync({ query_log: true }).then(
      () => notify.ok("The query log is on"),
      (e: unknown) => notify.fail(messageOf(e)),
    );
  return (
    <Card title="The query log is off">
      <div className="flex flex-wrap items-center gap-3 py-3">
        <p className="min-w-0 flex-1 text-sm text-zinc-700 dark:text-zinc-300">
          Start the server with RAGDOWN_QUERY_LOG=true, or turn on the query log setting on the Server tab, to record each search, hook call and read in query-log.jsonl in the data directory.
        </p>
        {!readOnly && (
          <Button variant="primary" disabled={update.isPending} onClick={turnOn}>
            <ChartColumn className="size-4" aria-hidden /> Turn the query log on
          </Button>
        )}
      </div>
    </Card>
  );
}

function Summary({ s, today }: { s: QueryLogSummary; today: string }) {
  const series = dailySeries(s.days ?? [], today);
  const days = series.map((d) => d.day);
  const searches = totalSearches(s.searches);
  const hook = s.hook;
  return (
    <>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Stat label="Searches" value={searches.toLocaleString()} detail={`${s.searches.recall} by agents · ${s.searches.context} hook · ${s.searches.web_search} here`} />
        <Stat label="Hook injection rate" value={percent(hook.injection_rate)} detail={hook.prompts ? `${hook.injected} of ${plural(hook.prompts, "prompt")}${hook.chunks_per_injected_prompt ? ` · ${hook.chunks_per_injected_prompt} ${hook.chunks_per_injected_prompt === 1 ? "section" : "sections"} each` : ""}` : "No prompts yet"} />
        <Stat label="Found nothing" value={percent(s.gaps.share)} detail={`${plural(s.gaps.count, "search", "searches")} under the minimum score`} />
        <Stat label="Reads after a search" value={percent(s.reads.share_after_search)} detail={`${s.reads.after_search} of ${plural(s.reads.total, "read")}, within 10 min`} />
      </div>

      <Card title="Searches per day" subtitle={`The last ${days.length} days, by who searched (UTC).`}>
        <div className="py-3">
          {hasAny(series, ["recall", "context", "web_search"]) ? (
            <StackedBars
              title="Searches per day"
              description={`${searches} searches in all: ${s.searches.recall} agent searches, ${s.searches.context} hook calls and ${s.searches.web_search} web searches.`}
              days={days}
              series={[
                { label: "Agent searches", fill: "fill-accent-600 dark:fill-accent-500", swatch: "bg-accent-600 dark:bg-accent-500", values: series.map((d) => d.recall) },
                { label: "Hook calls", fill: "fill-sky-500 dark:fill-sky-400", swatch: "bg-sky-500 dark:bg-sky-400", values: series.map((d) => d.context) },
                { label: "Web searches", fill: "fill-emerald-500 dark:fill-emerald-400", swatch: "bg-emerald-500 dark:bg-emerald-400", values: series.map((d) => d.web_search) },
              ]}
            />
          ) : (
            <p className="text-sm text-zinc-500 dark:text-zinc-400">No searches in the last {days.length} days.</p>
          )}
        </div>
      </Card>

      <div className="grid gap-4 lg:grid-cols-3">
        <div className="lg:col-span-2">
          <Card title="Hook injections per day" subtitle={`${percent(hook.injection_rate)} of prompts got context${hook.skipped ? `; ${plural(hook.skipped, "call")} skipped as short or a slash command` : ""}.`}>
            <div className="py-3">
              {hasAny(series, ["prompts"]) ? (
                <StackedBars
                  title="Hook injections per day"
                  description={`Of ${plural(hook.prompts, "prompt")}, ${hook.injected} got at least one section: an injection rate of ${percent(hook.injection_rate)}.`}
                  days={days}
                  series={[
                    { label: "Injected", fill: "fill-sky-500 dark:fill-sky-400", swatch: "bg-sky-500 dark:bg-sky-400", values: series.map((d) => d.injected) },
                    { label: "Nothing injected", fill: "fill-zinc-300 dark:fill-zinc-700", swatch: "bg-zinc-300 dark:bg-zinc-700", values: series.map((d) => d.prompts - d.injected) },
                  ]}
                />
              ) : (
                <p className="text-sm text-zinc-500 dark:text-zinc-400">The hook has seen no prompts in the last {days.length} days.</p>
              )}
            </div>
          </Card>
        </div>
        <Card title="Found nothing" subtitle="Searches whose best hit was under the minimum score.">
          <div className="space-y-2 py-3">
            <div className="text-3xl font-semibold tabular-nums">{percent(s.gaps.share)}</div>
            <ShareMeter label="Share of searches that found nothing" share={s.gaps.share} text={`${percent(s.gaps.share)}, ${s.gaps.count} of the searches`} />
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              {s.gaps.count ? `${plural(s.gaps.count, "search", "searches")}: documents nobody has written yet, or a floor set too high.` : "Every search found something."}
            </p>
          </div>
        </Card>
      </div>

      <GapsTable s={s} />
      <ReadsTable s={s} />
      <ClearLog />
    </>
  );
}

const th = "px-4 py-2 text-left text-xs font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400";
const td = "px-4 py-2 align-top";

function GapsTable({ s }: { s: QueryLogSummary }) {
  return (
    <Card title="Queries that found nothing" subtitle="The latest first: what people and agents looked for and the documents did not answer.">
      {s.gaps.recent.length === 0 ? (
        <p className="py-3 text-sm text-zinc-500 dark:text-zinc-400">None.</p>
      ) : (
        <div className="-mx-5 overflow-x-auto">
          <table className="w-full text-sm">
            <thead>
              <tr>
                <th scope="col" className={th}>Query</th>
                <th scope="col" className={th}>From</th>
                <th scope="col" className={`${th} text-right`}>Best</th>
                <th scope="col" className={`${th} text-right`}>Floor</th>
                <th scope="col" className={`${th} text-right`}>When</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
              {s.gaps.recent.map((g, i) => (
                <tr key={`${g.at_ms}-${i}`}>
                  <td className={`${td} break-words`}>{g.query ?? <span className="text-zinc-500 dark:text-zinc-400">(no text)</span>}</td>
                  <td className={`${td} whitespace-nowrap text-zinc-600 dark:text-zinc-400`}>{KIND_LABELS[g.kind] ?? g.kind}</td>
                  <td className={`${td} text-right tabular-nums`}>{g.best?.toFixed(2) ?? "—"}</td>
                  <td className={`${td} text-right tabular-nums`}>{g.min_score?.toFixed(2) ?? "—"}</td>
                  <td className={`${td} text-right whitespace-nowrap text-zinc-600 dark:text-zinc-400`}>{ago(g.at_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

function ReadsTable({ s }: { s: QueryLogSummary }) {
  return (
    <Card title="Documents read most" subtitle="ragdown_read_doc calls, and how many followed a search that showed the document within 10 minutes: a hint that the hit was used.">
      {s.reads.documents.length === 0 ? (
        <p className="py-3 text-sm text-zinc-500 dark:text-zinc-400">No document has been read yet.</p>
      ) : (
        <div className="-mx-5 overflow-x-auto">
          <table className="w-full text-sm">
            <thead>
              <tr>
                <th scope="col" className={th}>Document</th>
                <th scope="col" className={`${th} text-right`}>Reads</th>
                <th scope="col" className={`${th} text-right`}>After a search</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
              {s.reads.documents.map((d) => {
                const { folder, doc } = splitPath(d.path);
                return (
                  <tr key={d.path}>
                    <td className={`${td} break-all`}>
                      <Link to="/f/$folder" params={{ folder }} search={{ doc }} className="text-accent-700 hover:underline dark:text-accent-100">
                        {d.path}
                      </Link>
                    </td>
                    <td className={`${td} text-right tabular-nums`}>{d.reads}</td>
                    <td className={`${td} text-right tabular-nums`}>{d.after_search}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

function ClearLog() {
  const clearLog = useClearQueryLog();
  const [asking, setAsking] = useState(false);
  const clear = () =>
    void clearLog.mutateAsync().then(
      () => {
        notify.ok("Emptied the query log");
        setAsking(false);
      },
      (e: unknown) => notify.fail(messageOf(e)),
    );
  return (
    <div className="flex justify-end">
      <Button variant="ghost" onClick={() => setAsking(true)}>
        <Trash2 className="size-4" aria-hidden /> Empty the log
      </Button>
      <Confirm
        open={asking}
        onOpenChange={setAsking}
        title="Empty the query log?"
        description="Every logged search, hook call and read is deleted from the server, and these figures start again from nothing."
        confirm="Empty the log"
        busy={clearLog.isPending}
        onConfirm={clear}
      />
    </div>
  );
}
