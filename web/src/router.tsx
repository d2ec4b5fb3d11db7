//! The routes (`/`, `/f/<folder>`, `/f/<folder>/changes`, `/settings`; their URL state is typed in `lib/routeSearch.ts`;
//! and `/oauth/consent/<request>`, where the server sends the owner to answer an app), and a not-found page for anything else (the server sends the app for every path).
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent } from "@tanstack/react-router";
import type { QueryClient } from "@tanstack/react-query";
import { App } from "./shell/App";
import { Home } from "./routes/Home";
import { NotFound } from "./routes/NotFound";
import { FolderPage } from "./routes/folder/FolderPage";
import { changesSearch, folderSearch, settingsSearch } from "./lib/routeSearch";

const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({
  component: App,
  notFoundComponent: NotFound,
});

const homeRoute = createRoute({ getParentRoute: () => rootRoute, path: "/", component: Home });

const folderRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/f/$folder",
  component: FolderPage,
  validateSearch: folderSearch,
});

const changesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/f/$folder/changes",
  // Its own chunk, with the diff it shares with a document's History.
  component: lazyRouteComponent(() => import("./routes/folder/history/ChangesPage"), "ChangesPage"),
  validateSearch: changesSearch,
});

const settingsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/settings",
  // Its own chunk: the first page of most visits is a folder.
  component: lazyRouteComponent(() => import("./routes/settings/SettingsPage"), "SettingsPage"),
  validateSearch: settingsSearch,
});

const consentRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/oauth/consent/$request",
  // Its own chunk: seen once per app connected.
  component: lazyRouteComponent(() => import("./routes/oauth/ConsentPage"), "ConsentPage"),
});

const routeTree = rootRoute.addChildren([homeRoute, folderRoute, changesRoute, settingsRoute, consentRoute]);

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
