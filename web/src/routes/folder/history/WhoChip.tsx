//! Who made a change, as both history screens show it: the tool (or the web UI), its agent
//! session, and the scoped token it used. Apart from the document's History so that Recent
//! changes does not load the diff with it.
import { KeyRound } from "lucide-react";
import { clsx } from "clsx";
import { Badge } from "../../../components/ui/states";
import { shortSession, whoLabel, type Entry } from "./entries";

/** Who made a change: the tool (or the web UI), its agent session, and the scoped token it used. */
export function WhoChip({ who }: { who: Entry["who"] }) {
  return (
    <span className="inline-flex min-w-0 items-center gap-1">
      <span className={clsx("truncate", who.via === "mcp" && "font-mono text-[0.92em]")}>{whoLabel(who)}</span>
      {who.session && (
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
