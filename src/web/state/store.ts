import { useSyncExternalStore } from 'react';

/** A tiny observable value: enough for the few app-wide facts (current user, site information, dialog flags). */
export interface Store<T> {
  // Properties, not methods: they are passed around unbound (useSyncExternalStore, promise callbacks).
  get: () => T;
  set: (next: T | ((current: T) => T)) => void;
  subscribe: (listener: () => void) => () => void;
}

export function createStore<T>(initial: T, onChange?: (value: T) => void): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(next) {
      value = typeof next === 'function' ? (next as (c: T) => T)(value) : next;
      onChange?.(value);
      listeners.forEach((l) => l());
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export const useStore = <T>(store: Store<T>): T => useSyncExternalStore(store.subscribe, store.get, store.get);
