import type { Schemas } from '../../api/operations';
import { createStore } from './store';

/** Site information (record 1), held in memory only: every fresh load reads it again. */
export const siteStore = createStore<Schemas['BasicInformation'] | null>(null);
