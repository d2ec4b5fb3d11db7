//! Who made a change, as both history screens show it: the tool (or the web UI), its agent
//! session, and the scoped token it used. Apart from the document's History so that Recent
//! changes does not load the diff with it. Where it sits outside a button, the session is a link to
//! everything that session did in the folder (Recent changes filtered by it).
import type { ReactNode } from "react";
import { Link } from "@tanstack/react-router";
import { KeyRound } from "lucide-react";
import { clsx } from "clsx";
import { Badge } from "../../../components/ui/states";
import { shortSession, whoLabel, type Entry } from "./entries";

/** Who made a change: the tool (or the web UI), its agent session, and the scoped token it used.
 * With `folder`, the session links to that folder's changes made in the session. */
export function WhoChip({ who, folder }: { who: Entry["who"]; folder?: string }) {
  return (
    <span className="inline-flex min-w-0 items-center gap-1">
      <span className={clsx("truncate", who.via === "mcp" && "font-mono text-[0.92em]")}>{whoLabel(who)}</span>
      {who.session && folder && <SessionLink session={who.session} folder={folder} />}
      {who.session && !folder && (
        <Badge title={`Agent session ${who.session}`}>
          <span className="font-mono">{shortSession(who.session)}</span>
        </Badge>
      )}
      {who.token && (
        <Badge tone="accent" title={`Made with the scoped token ${who.token}`}>
          <KeyRound className="size-3" aria-hidden />
          <span className="max-w-32 truncate">{who.token}</span>
        </Badge>
      )}
    </span>
  );
}

/** An agent session as a link to the folder's Recent changes, filtered to that session. */
export function SessionLink({ session, folder, children }: { session: string; folder: string; children?: ReactNode }) {
  return (
    <Link
      to="/f/$folder/changes"
      params={{ folder }}
      search={{ session }}
      title={`Everything agent session ${session} did in this folder`}
      aria-label={children ? undefined : `Changes of agent session ${session}`}
      className="rounded-md hover:underline focus-visible:outline-2 focus-visible:outline-accent-500"
    >
      {children ?? (
        <Badge>
          <span className="font-mono">{shortSession(session)}</span>
        </Badge>
      )}
    </Link>
  );
}
