//! Light, dark or system theme: one saved choice (`cubeui-theme`, the key mcp-ragdown's UI uses, so
//! a chosen theme carries over), applied as a `dark` class on the root element, with System
//! following the OS live.
import { useSyncExternalStore } from "react";

export type Theme = "light" | "dark" | "system";
const KEY = "cubeui-theme";
const listeners = new Set<() => void>();
const media = () => window.matchMedia("(prefers-color-scheme: dark)");

export function getTheme(): Theme {
  const saved = localStorage.getItem(KEY);
  return saved === "light" || saved === "dark" ? saved : "system";
}

export function isDark(theme: Theme = getTheme()): boolean {
  return theme === "dark" || (theme === "system" && media().matches);
}

function apply() {
  document.documentElement.classList.toggle("dark", isDark());
  listeners.forEach((f) => f());
}

export function setTheme(theme: Theme): void {
  if (theme === "system") localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, theme);
  apply();
}

let watching = false;
function subscribe(listener: () => void) {
  if (!watching) {
    watching = true;
    media().addEventListener("change", apply);
    window.addEventListener("storage", (e) => e.key === KEY && apply());
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The saved choice, re-rendering when it changes. */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, getTheme);
}

/** Whether the page is dark now (the choice, or the OS under System). */
export function useIsDark(): boolean {
  return useSyncExternalStore(subscribe, () => isDark());
}
