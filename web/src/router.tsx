//! The routes and their URL state: `/`, `/f/<folder>?doc=&tag=&edit=&sort=`, `/settings?tab=`,
//! and a not-found page for anything else (the server sends the app for every path).
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent } from "@tanstack/react-router";
import type { QueryClient } from "@tanstack/react-query";
import { App } from "./shell/App";
import { Home } from "./routes/Home";
import { NotFound } from "./routes/NotFound";
import { FolderPage } from "./routes/folder/FolderPage";

export interface FolderSearch {
  doc?: string;
  tag?: string;
  edit?: boolean;
  sort?: "recent";
}

export type SettingsTab = "folders" | "device" | "server" | "usage";
export interface SettingsSearch {
  tab?: Exclude<SettingsTab, "folders">;
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({
  component: App,
  notFoundComponent: NotFound,
});

const homeRoute = createRoute({ getParentRoute: () => rootRoute, path: "/", component: Home });

export const folderRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/f/$folder",
  component: FolderPage,
  validateSearch: (search: Record<string, unknown>): FolderSearch => ({
    doc: str(search.doc),
    tag: str(search.tag),
    edit: search.edit === true || search.edit === "true" ? true : undefined,
    sort: search.sort === "recent" ? "recent" : undefined,
  }),
});

export const settingsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/settings",
  // Its own chunk: the first page of most visits is a folder.
  component: lazyRouteComponent(() => import("./routes/settings/SettingsPage"), "SettingsPage"),
  validateSearch: (search: Record<string, unknown>): SettingsSearch => {
    const tab = search.tab;
    return { tab: tab === "device" || tab === "server" || tab === "usage" ? tab : undefined };
  },
});

const routeTree = rootRoute.addChildren([homeRoute, folderRoute, settingsRoute]);

export const router = createRouter({
  routeTree,
  context: { queryClient: undefined! },
  defaultPreload: "intent",
  scrollRestoration: false,
});

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
