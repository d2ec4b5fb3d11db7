//! The URL state of the app's pages, typed and validated: `/f/<folder>?doc=&tag=&edit=&sort=&history=`,
//! `/f/<folder>/changes?session=&tool=&path=` and `/settings?tab=`. Apart from the router so pages can use the types without importing it.
export interface FolderSearch {
  doc?: string;
  tag?: string;
  edit?: boolean;
  sort?: "recent";
  /** The open document's History instead of its preview. */
  history?: boolean;
}

/** The filters of a folder's Recent changes. */
export interface ChangesSearch {
  session?: string;
  /** A tool's name, or `web` for the web UI. */
  tool?: string;
  /** Inside the folder. */
  path?: string;
}

export type SettingsTab = "folders" | "device" | "server" | "usage" | "access";
export interface SettingsSearch {
  tab?: Exclude<SettingsTab, "folders">;
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

export function folderSearch(search: Record<string, unknown>): FolderSearch {
  return {
    doc: str(search.doc),
    tag: str(search.tag),
    edit: search.edit === true || search.edit === "true" ? true : undefined,
    sort: search.sort === "recent" ? "recent" : undefined,
    history: search.history === true || search.history === "true" ? true : undefined,
  };
}

export function changesSearch(search: Record<string, unknown>): ChangesSearch {
  return { session: str(search.session), tool: str(search.tool), path: str(search.path) };
}

export function settingsSearch(search: Record<string, unknown>): SettingsSearch {
  const tab = search.tab;
  return { tab: tab === "device" || tab === "server" || tab === "usage" || tab === "access" ? tab : undefined };
}
