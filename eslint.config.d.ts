// Types of what eslint.config.js exports besides the config itself, for tests/unit/import-layers.test.ts.
import type { Linter } from 'eslint';

export interface LayerZone {
  target: string[] | string;
  from: string[] | string;
  message: string;
}
export declare function serverLayers(): LayerZone[];
export declare const SQL_ONLY_IN_REPOSITORIES: Linter.Config;
declare const config: Linter.Config[];
export default config;
