import type { Schemas } from '../../../api/operations.js';
import { forFamily, type ByFamily, type ServiceSettings } from './families.js';

export type NotifyChannel = Schemas['NotifyChannel'];

/**
 * How a service's owner wants to hear of its runs, by settings family. Every family so far has its own `notify` field;
 * a new family fails the type check until it says where its channel is.
 */
const CHANNELS: ByFamily<NotifyChannel> = {
  ClockInSettings: (s) => s.notify,
  CourseSettings: (s) => s.notify,
};

/** The settings' notice channel; a kind no longer declared is told in the inbox only when a run fails. */
export const notifyChannel = (settings: ServiceSettings): NotifyChannel => forFamily(CHANNELS, settings, 'none');
