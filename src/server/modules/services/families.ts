import type { SettingsFamily, SettingsOf } from '../../../api/generated/platform-kinds.gen.js';
import { kindOf } from '../platforms/kinds.js';

// A service's settings after validation: the family they were checked against (the kind's settings schema in
// openapi.yaml) and the values, typed by that family's schema. The stored JSON is parsed once per row read, here;
// whatever runs a family's rules (schedules, notices, extra checks) takes a registry with one entry per family.

export type { SettingsFamily, SettingsOf };

/** Settings of one family `F`, its values typed by the family's schema. */
export type FamilySettings<F extends SettingsFamily = SettingsFamily> = {
  [K in SettingsFamily]: { readonly family: K; readonly values: SettingsOf<K> };
}[F];

/** Settings of a kind no longer declared in screens.config.ts: kept as stored and shown, never planned or told. */
export interface UndeclaredSettings {
  readonly family: null;
  readonly values: Readonly<Record<string, unknown>>;
}

export type ServiceSettings = FamilySettings | UndeclaredSettings;

/**
 * One entry per settings family, each taking that family's typed values. A kind that brings a new family (one line in
 * screens.config.ts and `npm run codegen`) fails the type check until every registry has its entry.
 */
export type ByFamily<T> = { readonly [F in SettingsFamily]: (values: SettingsOf<F>) => T };

/** Values that have just passed their family's schema (SettingsValidator.check), typed from then on. */
export const validated = <F extends SettingsFamily>(family: F, values: unknown): FamilySettings<F> =>
  ({ family, values }) as FamilySettings<F>;

/** A stored service's settings (valid against its kind's family when saved), parsed once when the row is read. */
export function readSettings(kind: string, stored: string): ServiceSettings {
  const values = JSON.parse(stored) as Record<string, unknown>;
  const family = kindOf(kind)?.settings;
  return family ? validated(family, values) : { family: null, values };
}

/** The registry's entry for the settings' family applied to their values, or `undeclared` for an undeclared kind. */
export function forFamily<T>(registry: ByFamily<T>, settings: ServiceSettings, undeclared: T): T {
  return settings.family === null ? undeclared : apply(registry, settings);
}

// Generic in the family, so the entry and the values are known to belong together (TypeScript's correlated unions).
const apply = <T, F extends SettingsFamily>(registry: ByFamily<T>, settings: FamilySettings<F>): T =>
  registry[settings.family](settings.values);
