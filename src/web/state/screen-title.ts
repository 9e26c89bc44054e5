import { createStore, useStore } from './store';

// A title a screen words from its record once read (/gxy/update: 开通工学云信息 before there is a service, 修改… after),
// in place of its screen-map title in the header and the document's title. Kept with the path it was read on, so no
// other page shows it.

const loaded = createStore<{ path: string; title: string } | null>(null);

export function setLoadedTitle(path: string, title: string): void {
  loaded.set({ path, title });
}

/** Forgets the title read on `path` (its screen closed): the next visit starts from the screen map's. */
export function clearLoadedTitle(path: string): void {
  loaded.set((current) => (current?.path === path ? null : current));
}

/** The title of the page at `pathname`: the one its record gave, else `fallback` (the screen map's). */
export function useScreenTitle(pathname: string, fallback: string): string {
  const current = useStore(loaded);
  return current?.path === pathname ? current.title : fallback;
}
