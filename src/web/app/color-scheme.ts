import { createStore, useStore } from '../state/store';

// Dark mode follows the system setting. antd-mobile switches its CSS variables on
// html[data-prefers-color-scheme='dark'], and theme-dark.css overrides the app's own there, so the attribute is the
// one switch; it is set before the first render (no light flash) and again whenever the system setting changes.

export type ColorScheme = 'light' | 'dark';

// A DOM without matchMedia (jsdom in the component tests) is light.
const query = typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : null;
const current = (): ColorScheme => (query?.matches ? 'dark' : 'light');

export const colorSchemeStore = createStore<ColorScheme>(current(), (scheme) =>
  document.documentElement.setAttribute('data-prefers-color-scheme', scheme),
);
document.documentElement.setAttribute('data-prefers-color-scheme', colorSchemeStore.get());
query?.addEventListener('change', () => colorSchemeStore.set(current()));

/** The scheme in effect, for what CSS cannot reach (the watermark is drawn on a canvas). */
export const useColorScheme = (): ColorScheme => useStore(colorSchemeStore);
