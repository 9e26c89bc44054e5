import { ConfigError, integer } from '../lib/config-values.js';

/** Where /metrics is served (never under /api, never public): see metrics/serve.ts. */
export interface MetricsConfig {
  /** A bearer token that opens GET /metrics on the app's own port; empty: not served there. */
  token: string;
  /** A port of its own on 127.0.0.1 that serves /metrics without a token; 0: none. */
  port: number;
}

export function loadMetricsConfig(env: NodeJS.ProcessEnv): MetricsConfig {
  const token = env.METRICS_TOKEN ?? '';
  if (token !== '' && token.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  return { token, port: integer('METRICS_PORT', env.METRICS_PORT, 0, 0, 65535) };
}
