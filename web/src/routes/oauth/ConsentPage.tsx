//! The consent page `/oauth/consent/<request>`, where `GET /oauth/authorize` sends the owner's
//! browser: which app asks, where the answer goes (the redirect's host, prominent), which folder
//! and what access; **Allow** or **Deny**, then the browser goes back to the app. Standalone (no
//! sidebar); the token gate in front of it is the app's. The app's name and URI are its own
//! claims: shown as text, never as markup or a link.
import { useState, type ReactNode } from "react";
import { useParams } from "@tanstack/react-router";
import { ShieldCheck } from "lucide-react";
import { useAnswerConsent, useConsentRequest, type ConsentRequest } from "../../api/oauth";
import { Button } from "../../components/ui/button";
import { Badge, Skeletons } from "../../components/ui/states";
import { useTitle } from "../../lib/title";
import { levelLabel } from "../settings/access";
import { Note } from "../settings/parts";
import { accessSentence, clientKind, consentFailure, grantedAccess, localhostWarning, unavailable } from "./consent";

export function ConsentPage() {
  const { request } = useParams({ from: "/oauth/consent/$request" });
  return <Consent id={request} leave={(url) => window.location.assign(url)} />;
}

/** The page for request `id`; `leave` takes the browser to the app's redirect (a prop so tests see it). */
export function Consent({ id, leave }: { id: string; leave: (url: string) => void }) {
  useTitle("Connect an app");
  const asked = useConsentRequest(id);
  return (
    <main className="flex min-h-dvh items-start justify-center overflow-y-auto bg-zinc-50 p-4 sm:items-center dark:bg-zinc-950">
      <div className="my-4 w-full max-w-lg rounded-xl border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        {asked.isPending ? (
          <>
            <h1 className="text-lg font-semibold">Connect an app</h1>
            <Skeletons rows={6} label="Loading the request" />
          </>
        ) : asked.isError ? (
          <>
            <h1 className="text-lg font-semibold">Connect an app</h1>
            <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-300">
              {consentFailure(asked.error)}
            </p>
          </>
        ) : (
          <Answer id={id} request={asked.data} leave={leave} />
        )}
      </div>
    </main>
  );
}

function Answer({ id, request: r, leave }: { id: string; request: ConsentRequest; leave: (url: string) => void }) {
  const answer = useAnswerConsent(id);
  const [onlyRead, setOnlyRead] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const access = grantedAccess(r.access, onlyRead);
  const warning = localhostWarning(r.client);
  const blocked = unavailable(r);
  const busy = answer.isPending || leaving;

  const send = (decision: "allow" | "deny") => {
    if (busy) return;
    answer.mutate(
      { decision, csrf: r.csrf, access },
      {
        onSuccess: ({ redirect }) => {
          setLeaving(true);
          leave(redirect);
        },
      },
    );
  };

  return (
    <>
      <div className="flex items-center gap-2 text-sm font-medium text-zinc-600 dark:text-zinc-400">
        <ShieldCheck className="size-6 text-accent-600" aria-hidden />
        ragdown at {window.location.host}
      </div>
      <h1 className="mt-3 text-lg font-semibold break-words">
        <span className="text-accent-700 dark:text-accent-100">{r.client.name}</span> wants to use your notes
      </h1>

      <div className="mt-4 rounded-lg border border-zinc-200 bg-zinc-50 px-4 py-3 dark:border-zinc-800 dark:bg-zinc-950">
        <div className="text-xs font-medium text-zinc-600 dark:text-zinc-400">Your answer goes to</div>
        <div className="mt-0.5 font-mono text-xl font-semibold break-all" data-testid="redirect-host">
          {r.client.redirect_host}
        </div>
        <div className="mt-1 font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">{r.client.redirect_uri}</div>
      </div>
      {warning && (
        <div className="mt-3">
          <Note>{warning}</Note>
        </div>
      )}

      <dl className="mt-4 divide-y divide-zinc-100 text-sm dark:divide-zinc-800">
        <Item label="App">
          <div className="font-medium break-words">{r.client.name}</div>
          {r.client.uri && <div className="text-xs break-all text-zinc-600 dark:text-zinc-400">{r.client.uri}</div>}
        </Item>
        <Item label="Client ID">
          <div className="font-mono text-xs break-all">{r.client.id}</div>
          <div className="text-xs text-zinc-600 dark:text-zinc-400">{clientKind(r.client)}</div>
        </Item>
        <Item label="Folder">
          <div className="font-mono font-medium break-all">{r.path}</div>
          <div className="font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">{r.resource}</div>
        </Item>
        <Item label="Access">
          <Badge tone={access === "write" ? "amber" : "accent"}>{levelLabel(access)}</Badge>
          <div className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{accessSentence(access, r.path)}</div>
          {r.access === "write" && (
            <label className="mt-2 flex items-center gap-2 text-sm">
              <input type="checkbox" checked={onlyRead} disabled={busy} onChange={(e) => setOnlyRead(e.target.checked)} />
              Only let it read
            </label>
          )}
        </Item>
      </dl>

      {blocked && (
        <div className="mt-3">
          <Note>{blocked} It can only be denied.</Note>
        </div>
      )}
      {answer.isError && (
        <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-300">
          {consentFailure(answer.error)}
        </p>
      )}
      {leaving && (
        <p role="status" className="mt-3 text-sm text-zinc-600 dark:text-zinc-400">
          Taking you back to {r.client.redirect_host}…
        </p>
      )}

      <div className="mt-5 flex justify-end gap-2">
        <Button disabled={busy} onClick={() => send("deny")}>
          Deny
        </Button>
        <Button variant="primary" disabled={busy || !!blocked} onClick={() => send("allow")}>
          Allow
        </Button>
      </div>
      <p className="mt-4 text-xs text-zinc-600 dark:text-zinc-400">
        You can revoke it at any time under{" "}
        <a href="/settings?tab=access" className="text-accent-700 underline dark:text-accent-100">
          Settings → Access
        </a>
        .
      </p>
    </>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[6rem_1fr] gap-3 py-2.5">
      <dt className="text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </div>
  );
}
