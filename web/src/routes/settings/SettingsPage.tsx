//! Settings `/settings?tab=`: Folders (the default, no parameter), This device, Server, Usage and Access,
//! as tabs kept in the URL. Arrow keys move between the tabs; each opens as it gets the focus.
import type { ReactNode } from "react";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { Tabs } from "radix-ui";
import { settingsSearch, type SettingsTab } from "../../lib/routeSearch";
import { useTitle } from "../../lib/title";
import { AccessTab } from "./AccessTab";
import { DeviceTab } from "./DeviceTab";
import { FoldersTab } from "./FoldersTab";
import { ServerTab } from "./ServerTab";
import { UsageTab } from "./UsageTab";

const TABS: { value: SettingsTab; label: string; body: () => ReactNode }[] = [
  { value: "folders", label: "Folders", body: () => <FoldersTab /> },
  { value: "device", label: "This device", body: () => <DeviceTab /> },
  { value: "server", label: "Server", body: () => <ServerTab /> },
  { value: "usage", label: "Usage", body: () => <UsageTab /> },
  { value: "access", label: "Access", body: () => <AccessTab /> },
];

export function SettingsPage() {
  useTitle("Settings");
  const { tab } = useSearch({ from: "/settings" });
  const navigate = useNavigate();
  const current: SettingsTab = tab ?? "folders";
  const select = (value: string) => {
    void navigate({ to: "/settings", search: settingsSearch({ tab: value }), replace: true });
  };
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-5xl px-4 py-6 md:px-8 md:py-8">
        <Link to="/" className="mb-3 inline-block text-sm text-accent-700 hover:underline md:hidden dark:text-accent-100">
          ← Documents
        </Link>
        <header>
          <h1 className="text-xl font-semibold">Settings</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">How this browser shows ragdown, and how the server is set up.</p>
        </header>
        <Tabs.Root value={current} onValueChange={select} className="mt-5">
          <Tabs.List aria-label="Settings" className="flex gap-1 overflow-x-auto border-b border-zinc-200 dark:border-zinc-800">
            {TABS.map((t) => (
              <Tabs.Trigger
                key={t.value}
                value={t.value}
                className="-mb-px shrink-0 border-b-2 border-transparent px-3 py-2 text-sm font-medium text-zinc-600 hover:text-zinc-900 data-[state=active]:border-accent-600 data-[state=active]:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100 dark:data-[state=active]:border-accent-500 dark:data-[state=active]:text-zinc-50"
              >
                {t.label}
              </Tabs.Trigger>
            ))}
          </Tabs.List>
          {TABS.map((t) => (
            <Tabs.Content key={t.value} value={t.value} className="pt-5 focus-visible:outline-none">
              {t.body()}
            </Tabs.Content>
          ))}
        </Tabs.Root>
      </div>
    </div>
  );
}
