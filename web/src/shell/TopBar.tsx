//! The top bar that replaces the sidebar below the medium breakpoint: brand, a folder switcher,
//! Settings, Lock and the theme toggle.
import { Link, useNavigate, useRouterState } from "@tanstack/react-router";
import { ChevronDown, Lock, Settings } from "lucide-react";
import { useFolders, useStatus } from "../api/hooks";
import { Menu, MenuItem, MenuSeparator } from "../components/ui/menu";
import { IconButton } from "../components/ui/button";
import { Brand, FolderIcon } from "./Sidebar";
import { ThemeToggle } from "./ThemeToggle";
import { lock } from "./lock";

export function TopBar() {
  const folders = useFolders();
  const status = useStatus();
  const navigate = useNavigate();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const current = pathname.startsWith("/f/") ? decodeURIComponent(pathname.slice(3).split("/")[0] ?? "") : undefined;
  const open = folders.data?.folders.find((f) => f.name === current);
  return (
    <header className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 md:hidden dark:border-zinc-800">
      <Brand />
      <Menu
        trigger={
          <button type="button" className="ml-2 inline-flex min-w-0 items-center gap-1 rounded-md px-2 py-1 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800">
            <span className="truncate">{open?.title ?? "Folders"}</span>
            <ChevronDown className="size-4" aria-hidden />
          </button>
        }
      >
        {(folders.data?.folders ?? []).map((f) => (
          <MenuItem key={f.name} onSelect={() => void navigate({ to: "/f/$folder", params: { folder: f.name } })}>
            <span className="flex items-center gap-2">
              <FolderIcon mcp={f.mcp} />
              {f.title}
              <span className="ml-auto text-xs text-zinc-500 dark:text-zinc-400">{f.name === current ? "✓" : `${f.files} files`}</span>
            </span>
          </MenuItem>
        ))}
        <MenuSeparator />
        <MenuItem onSelect={() => void navigate({ to: "/settings" })}>Manage folders</MenuItem>
      </Menu>
      <div className="ml-auto flex items-center gap-1">
        <Link to="/settings" aria-label="Settings" className="inline-flex size-8 items-center justify-center rounded-md hover:bg-zinc-100 dark:hover:bg-zinc-800">
          <Settings className="size-4" aria-hidden />
        </Link>
        {status.data?.auth_required && (
          <IconButton label="Lock: forget the token" onClick={lock}>
            <Lock />
          </IconButton>
        )}
        <ThemeToggle />
      </div>
    </header>
  );
}
