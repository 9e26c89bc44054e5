import type { Schemas } from '../../api/operations';
import { api } from '../api';
import { SITE_INFORMATION_ID } from '../config/constants';
import { createStore } from './store';

/** Site information (record 1), held in memory: read at start, and again whenever it may have changed. */
export const siteStore = createStore<Schemas['BasicInformation'] | null>(null);

// Other tabs of this browser hear about a save at once; other devices (another admin's phone) read it again when the
// app comes back to the foreground. A BroadcastChannel alone would miss those; polling would cost a request a minute
// on every phone for a record that changes a few times a year.
const CHANNEL = 'site-information';
// Opened on first use, not on import: a module imported in Node (a test, a script) must not be kept alive by an open
// channel.
let opened: BroadcastChannel | null | undefined;
const siteChannel = () => (opened ??= typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(CHANNEL));

/** Reads the site information again; quiet, since the frame keeps what it shows when the read fails. */
export async function reloadSite(): Promise<void> {
  try {
    siteStore.set(await api.call('basicInformationGet', { query: { id: SITE_INFORMATION_ID }, quiet: true }));
  } catch {
    // keep the last known record
  }
}

/** After a save of the site information: this tab reads it again and tells the others to. */
export async function siteChanged(): Promise<void> {
  await reloadSite();
  siteChannel()?.postMessage('changed');
}

/** Keeps the record fresh while the app is open: a save in another tab, or a return to the foreground. */
export function followSiteChanges(): () => void {
  const onVisible = () => {
    if (document.visibilityState === 'visible') void reloadSite();
  };
  const onMessage = () => void reloadSite();
  const channel = siteChannel();
  channel?.addEventListener('message', onMessage);
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    channel?.removeEventListener('message', onMessage);
    document.removeEventListener('visibilitychange', onVisible);
  };
}
