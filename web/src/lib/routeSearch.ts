//! The URL state of the app's pages, typed and validated: `/f/<folder>?doc=&tag=&edit=&sort=`
//! and `/settings?tab=`. Apart from the router so pages can use the types without importing it.
export interface FolderSearch {
  doc?: string;
  tag?: string;
  edit?: boolean;
  sort?: "recent";
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
  };
}

export function settingsSearch(search: Record<string, unknown>): SettingsSearch {
  const tab = search.tab;
  return { tab: tab === "device" || tab === "server" || tab === "usage" || tab === "access" ? tab : undefined };
}
