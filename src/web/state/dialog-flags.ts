import { createStore } from './store';

/** Shown-once flags for this browser session, kept in sessionStorage under the seed's key `dialog`. */
export interface DialogFlags {
  isRead: boolean;
  mallRead: boolean;
}

const KEY = 'dialog';

function load(): DialogFlags {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as Partial<DialogFlags>;
    return { isRead: saved.isRead === true, mallRead: saved.mallRead === true };
  } catch {
    return { isRead: false, mallRead: false };
  }
}

export const dialogFlags = createStore<DialogFlags>(load(), (value) => {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(value));
  } catch {
    // Private mode without storage: the flags then last for this page only.
  }
});

export const markRead = (flag: keyof DialogFlags) => dialogFlags.set((f) => ({ ...f, [flag]: true }));
