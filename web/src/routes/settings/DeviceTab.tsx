//! Settings → This device: what this browser keeps. The theme (three tiles, the same choice as
//! the top bar's toggle) and the token (whether one is needed and kept, and Forget token).
import { useState, type KeyboardEvent } from "react";
import { RadioGroup } from "radix-ui";
import { KeyRound, Monitor, Moon, Sun } from "lucide-react";
import { useStatus } from "../../api/hooks";
import { Button } from "../../components/ui/button";
import { Confirm } from "../../components/ui/dialog";
import { Skeletons } from "../../components/ui/states";
import { setTheme, useTheme, type Theme } from "../../lib/theme";
import { getToken } from "../../lib/token";
import { lock } from "../../shell/lock";
import { Card, Row, Rows } from "./parts";

const tiles: { value: Theme; label: string; hint: string; icon: typeof Sun }[] = [
  { value: "light", label: "Light", hint: "Always light", icon: Sun },
  { value: "dark", label: "Dark", hint: "Always dark", icon: Moon },
  { value: "system", label: "System", hint: "Follow the device", icon: Monitor },
];

export function DeviceTab() {
  return (
    <div className="space-y-4">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">Kept in this browser's storage. Other browsers keep their own.</p>
      <Appearance />
      <Access />
    </div>
  );
}

const STEP: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

/**
 * Arrows select as they move. Radix selects on the focus its roving group moves in a timeout, and
 * only while the key is still down, so a quick tap can move without selecting: select here too.
 */
function selectByArrow(e: KeyboardEvent<HTMLDivElement>) {
  const step = STEP[e.key];
  const at = tiles.findIndex((t) => t.value === (e.target as HTMLElement).getAttribute("value"));
  if (!step || at < 0) return;
  setTheme(tiles[(at + step + tiles.length) % tiles.length]!.value);
}

function Appearance() {
  const theme = useTheme();
  return (
    <Card title="Appearance" subtitle="System follows the device's light or dark setting.">
      <RadioGroup.Root value={theme} onValueChange={(v) => setTheme(v as Theme)} onKeyDown={selectByArrow} aria-label="Theme" className="grid gap-3 py-3 sm:grid-cols-3">
        {tiles.map(({ value, label, hint, icon: Icon }) => (
          <RadioGroup.Item
            key={value}
            value={value}
            aria-label={`${label}: ${hint}`}
            className="flex items-center gap-3 rounded-lg border border-zinc-200 px-4 py-3 text-left transition-colors hover:bg-zinc-50 data-[state=checked]:border-accent-600 data-[state=checked]:bg-accent-50 data-[state=checked]:ring-1 data-[state=checked]:ring-accent-600 dark:border-zinc-800 dark:hover:bg-zinc-800/60 dark:data-[state=checked]:border-accent-500 dark:data-[state=checked]:bg-accent-500/15 dark:data-[state=checked]:ring-accent-500"
          >
            <Icon className="size-5 shrink-0 text-zinc-600 dark:text-zinc-300" aria-hidden />
            <span>
              <span className="block text-sm font-medium">{label}</span>
              <span className="block text-xs text-zinc-500 dark:text-zinc-400">{hint}</span>
            </span>
          </RadioGroup.Item>
        ))}
      </RadioGroup.Root>
    </Card>
  );
}

function Access() {
  const status = useStatus();
  const [asking, setAsking] = useState(false);
  if (!status.data) return <Skeletons rows={2} label="Loading access" />;
  if (!status.data.auth_required) {
    return (
      <Card title="Access">
        <p className="py-3 text-sm text-zinc-700 dark:text-zinc-300">
          This server runs with SECURE_LOCAL_NET=true, so it asks for no token: anyone who can reach it can read the notes.
        </p>
      </Card>
    );
  }
  const stored = getToken() !== null;
  return (
    <Card
      title="Access"
      actions={
        stored && (
          <Button onClick={() => setAsking(true)}>
            <KeyRound className="size-4" aria-hidden /> Forget token
          </Button>
        )
      }
    >
      <Rows>
        <Row label="Token required" hint="The server was started with RAGDOWN_TOKEN.">
          Yes
        </Row>
        <Row label="Stored in this browser" hint="Sent with every request, as Authorization: Bearer.">
          {stored ? "Yes" : "No"}
        </Row>
      </Rows>
      <Confirm
        open={asking}
        onOpenChange={setAsking}
        title="Forget the token?"
        description="This browser stops sending it, and asks for it again before it shows anything. Keep a copy: the server cannot show it to you."
        confirm="Forget"
        onConfirm={() => {
          setAsking(false);
          lock();
        }}
      />
    </Card>
  );
}
