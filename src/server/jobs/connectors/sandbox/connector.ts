import { setTimeout as delay } from 'node:timers/promises';
import type { Db } from '../../../db/database.js';
import type { SandboxMode } from '../../../db/types.js';
import type { SandboxConfig } from '../../../config/jobs.js';
import type { Connector, ConnectorResult, ConnectorRun, ConnectorService } from '../connector.js';
import { receiveCheckin } from './platform-repo.js';
import { draw } from './random.js';

type Outcome = 'ok' | 'transient' | 'permanent' | 'timeout';

/** What the simulated platform does with this attempt: the service's override, else the seeded failure rate. */
function outcomeFor(mode: SandboxMode, config: SandboxConfig, run: ConnectorRun): Outcome {
  switch (mode) {
    case 'ok':
    case 'transient':
    case 'permanent':
    case 'timeout':
      return mode;
    case 'flaky':
      return run.attempt === 1 ? 'transient' : 'ok';
    case 'auto': {
      const roll = draw(config.seed, run.id, run.attempt, 1) * 100;
      if (roll >= config.failurePercent) return 'ok';
      // Of the failures, most are passing trouble; a fifth are refusals that a retry will not change.
      return roll < config.failurePercent * 0.2 ? 'permanent' : 'transient';
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return delay(ms, undefined, { signal });
}

/** Never settles: the platform does not answer, until the caller gives up. */
const hang = async (signal: AbortSignal): Promise<never> => {
  await delay(2 ** 31 - 1, undefined, { signal });
  throw new Error('unreachable: the wait ends only by its abort');
};

/**
 * The sandbox connector: a simulated platform inside the product, with latency and failure modes. It opens no
 * connection anywhere; a successful attempt is a row in the sandbox's own tables.
 */
export class SandboxConnector implements Connector {
  constructor(
    private readonly db: Db,
    private readonly config: SandboxConfig,
    private readonly now: () => number,
  ) {}

  async run(service: ConnectorService, run: ConnectorRun, signal: AbortSignal): Promise<ConnectorResult> {
    const outcome = outcomeFor(service.sandboxMode, this.config, run);
    const latency = this.config.latencyMs * (0.5 + draw(this.config.seed, run.id, run.attempt, 2));
    if (outcome === 'timeout') await hang(signal);
    await sleep(Math.round(latency), signal);
    if (outcome === 'transient') return { outcome, message: '平台暂时繁忙，稍后重试' };
    if (outcome === 'permanent') return { outcome, message: '平台拒绝了这次请求' };
    await receiveCheckin(this.db, service.id, run.id, this.now());
    return { outcome: 'ok', message: '平台已收到' };
  }
}
