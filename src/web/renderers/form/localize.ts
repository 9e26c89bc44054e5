import type { RJSFSchema } from '@rjsf/utils';
import type { Localizer } from '@rjsf/validator-ajv8';
import type { ErrorObject } from 'ajv';
import { messages as t } from '../../i18n/zh-CN';

// Turns Ajv's English errors into the Chinese sentences the server would answer for the same input (see
// describe() in src/server/http/validation.ts), built from the field's title, so a field reads the same message
// whether the phone or the server caught it.

/** The schema of the property at `path` under `root`, if the path leads to one. */
function schemaAt(root: RJSFSchema, path: readonly string[]): RJSFSchema | undefined {
  let schema: RJSFSchema | undefined = root;
  for (const segment of path) {
    const next: RJSFSchema | boolean | undefined = schema?.properties?.[segment];
    schema = typeof next === 'object' ? next : undefined;
  }
  return schema;
}

export function describeError(root: RJSFSchema, patternMessages: Readonly<Record<string, string>>, error: ErrorObject): string {
  const e = t.form.errors;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return e.unknownField(String(params.additionalProperty).slice(0, 40));
  const path = error.instancePath.split('/').slice(1).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') path.push(String(params.missingProperty));
  const schema = schemaAt(root, path);
  const name = path.at(-1);
  const title = schema?.title ?? name ?? t.form.thisField;
  const limit = Number(params.limit);
  switch (error.keyword) {
    case 'required':
      return e.required(title);
    case 'type':
      return params.type === 'integer' ? e.integer(title) : params.type === 'number' ? e.number(title) : e.type(title);
    case 'minLength':
      return limit === 1 ? e.empty(title) : e.minLength(title, limit);
    case 'maxLength':
      return e.maxLength(title, limit);
    case 'pattern':
      // The contract's wording is kept per top-level field, which is every field a generated form has.
      return e.pattern(title, path.length === 1 && name ? patternMessages[name] : undefined);
    case 'format':
      return e.format(title);
    case 'minimum':
    case 'exclusiveMinimum':
      return e.minimum(title, limit);
    case 'maximum':
    case 'exclusiveMaximum':
      return e.maximum(title, limit);
    case 'enum':
    case 'const':
      return e.enum(title);
    default:
      return e.other(title);
  }
}

/** The localizer handed to createPrecompiledValidator: rewrites each error's message in place. */
export function createLocalizer(root: RJSFSchema, patternMessages: Readonly<Record<string, string>>): Localizer {
  return (errors) => {
    for (const error of errors ?? []) error.message = describeError(root, patternMessages, error);
  };
}
