//! The app shell: the token gate in front of everything, then the sidebar (or, on narrow
//! screens, the top bar) beside the page, with toasts and the quick switcher on top. The OAuth
//! pages (`/oauth/...`, the consent page) stand alone: the gate, then the page, nothing else.
import { useEffect, useState } from "react";
import { Outlet, useRouterState } from "@tanstack/react-router";
import { useQueryClient } from "@tanstack/react-query";
import { Tooltip } from "radix-ui";
import { Toaster } from "sonner";
import { onUnauthorized } from "../api/client";
import { useFollowIndex } from "../api/follow";
import { useStatus } from "../api/hooks";
import { setToken } from "../lib/token";
import { useIsDark } from "../lib/theme";
import { Sidebar } from "./Sidebar";
import { TopBar } from "./TopBar";
import { TokenGate } from "./TokenGate";
import { LOCK_EVENT } from "./lock";
import { QuickSwitcher } from "./QuickSwitcher";

export function App() {
  const client = useQueryClient();
  const [locked, setLocked] = useState(false);
  const dark = useIsDark();
  const standalone = useRouterState({ select: (s) => s.location.pathname.startsWith("/oauth/") });
  useFollowIndex(useStatus().data);

  useEffect(() => {
    const show = () => {
      setLocked(true);
    };
    window.addEventListener(LOCK_EVENT, show);
    const off = onUnauthorized(show);
    return () => {
      window.removeEventListener(LOCK_EVENT, show);
      off();
    };
  }, []);

  const unlock = (token: string) => {
    setToken(token);
    setLocked(false);
    void client.resetQueries();
  };

  return (
    <Tooltip.Provider delayDuration={400}>
      {locked ? (
        <TokenGate onUnlock={unlock} />
      ) : standalone ? (
        <Outlet />
      ) : (
        <div className="flex h-dvh flex-col md:flex-row">
          <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:z-50 focus:m-2 focus:rounded focus:bg-white focus:p-2">
            Skip to content
          </a>
          <Sidebar />
          <TopBar />
          <main id="main" className="min-h-0 min-w-0 flex-1 overflow-hidden">
            <Outlet />
          </main>
          <QuickSwitcher />
        </div>
      )}
      <Toaster position="bottom-right" closeButton theme={dark ? "dark" : "light"} />
    </Tooltip.Provider>
  );
}
