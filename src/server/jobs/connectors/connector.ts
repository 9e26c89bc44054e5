import type { SandboxMode } from '../../db/types.js';
import type { ServiceSettings } from '../../modules/services/families.js';
import type { RunSlot } from '../../modules/services/schedules.js';

/** What a connector is told about the service it acts for. */
export interface ConnectorService {
  id: number;
  userId: number;
  platformId: number;
  kind: string;
  /** Valid against the kind's settings family, typed by it. */
  settings: ServiceSettings;
  sandboxMode: SandboxMode;
}

export interface ConnectorRun {
  id: number;
  /** 1 on the first try, then one more per retry. */
  attempt: number;
  scheduledAt: number;
  /** Which of the service's times this run is (签到 or 签退); null for a manual run. */
  slot: RunSlot | null;
}

/**
 * The result of one attempt. `transient` may succeed if tried again (the scheduler retries with backoff up to the
 * platform's limit); `permanent` will not.
 */
export interface ConnectorResult {
  outcome: 'ok' | 'transient' | 'permanent';
  /** A short Chinese sentence for the user's run list. */
  message: string;
}

/**
 * How the scheduler reaches a platform. The only implementation is the sandbox (a simulated platform inside the
 * product); a real one would be a new file behind this interface, not a change to the scheduler. `signal` aborts
 * when the run's time is up or the process shuts down.
 */
export interface Connector {
  run(service: ConnectorService, run: ConnectorRun, signal: AbortSignal): Promise<ConnectorResult>;
}
