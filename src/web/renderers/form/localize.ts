import type { RJSFSchema } from '@rjsf/utils';
import type { Localizer } from '@rjsf/validator-ajv8';
import type { ErrorObject } from 'ajv';
import { describeValidationError } from '../../../shared/validation-messages';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import type { FieldDisplay } from './resolve';

// Turns Ajv's English errors into the Chinese sentences the server answers for the same input: both sides word them
// with src/shared/validation-messages.ts, so a field reads the same message whether the phone or the server caught it.

/** The schema of the property at `path` under `root`, if the path leads to one. */
function schemaAt(root: RJSFSchema, path: readonly string[]): RJSFSchema | undefined {
  let schema: RJSFSchema | undefined = root;
  for (const segment of path) {
    const next: RJSFSchema | boolean | undefined = schema?.properties?.[segment];
    schema = typeof next === 'object' ? next : undefined;
  }
  return schema;
}

export function describeError(
  root: RJSFSchema,
  patternMessages: Readonly<Record<string, string>>,
  error: ErrorObject,
  shown: Readonly<Record<string, FieldDisplay>> = {},
  pickers: readonly string[] = [],
): string {
  let params = error.params as Record<string, unknown>;
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') path.push(String(params.missingProperty));
  const name = path.at(-1);
  // A field its widget shows in another unit (fen typed as yuan) is named, and its limits given, in that unit.
  const display = path.length === 1 && name ? shown[name] : undefined;
  if (display?.invalid && error.keyword === 'type') return display.invalid;
  if (display && typeof params.limit === 'number') params = { ...params, limit: params.limit / display.scale };
  const title = display?.title ?? schemaAt(root, path)?.title ?? name ?? w.form.thisField;
  // A field picked on chips or a wheel is chosen, not typed: left empty (or with nothing chosen) it says 请选择.
  const picked = path.length === 1 && name !== undefined && pickers.includes(name);
  if (picked && (error.keyword === 'required' || (error.keyword === 'minItems' && Number(params.limit) <= 1)))
    return w.form.choose(title);
  // The contract's wording is kept per top-level field, which is every field a generated form has.
  const rule = path.length === 1 && name ? patternMessages[name] : undefined;
  return describeValidationError(error.keyword, params, title, rule);
}

/** The localizer handed to createPrecompiledValidator: rewrites each error's message in place. */
export function createLocalizer(
  root: RJSFSchema,
  patternMessages: Readonly<Record<string, string>>,
  shown: Readonly<Record<string, FieldDisplay>> = {},
  pickers: readonly string[] = [],
): Localizer {
  return (errors) => {
    for (const error of errors ?? []) error.message = describeError(root, patternMessages, error, shown, pickers);
  };
}
