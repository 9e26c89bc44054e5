// Form schemas and their precompiled validators, generated from openapi.yaml.
//
// The web app builds its generic forms with @rjsf/core from each operation's JSON request body. The browser gets
// plain JSON Schema (no $ref, no allOf, no OpenAPI extensions) and one validator module per form compiled here by
// Ajv: the phone never downloads the Ajv compiler, and the validators need no eval under `script-src 'self'`.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compileSchemaValidatorsCode } from '@rjsf/validator-ajv8/compileSchemaValidators';

const SCHEMA_PREFIX = '#/components/schemas/';

/** Keywords kept as written; everything else a request schema may carry from OpenAPI (`example`, `x-*`) is dropped. */
const JSON_SCHEMA_KEYWORDS = new Set([
  '$id',
  'type',
  'title',
  'description',
  'default',
  'enum',
  'const',
  'format',
  'readOnly',
  'writeOnly',
  'deprecated',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
]);
/** The order keywords are written in, so a reordering in openapi.yaml does not churn the generated files. */
const KEYWORD_ORDER = [...JSON_SCHEMA_KEYWORDS];

/** Every operation whose request body is JSON: what a generated form can submit. Sorted by operationId. */
export function jsonBodyOperations(doc) {
  const found = [];
  for (const methods of Object.values(doc.paths)) {
    for (const op of Object.values(methods)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema) found.push({ operationId: op.operationId, schema });
    }
  }
  return found.sort((a, b) => (a.operationId < b.operationId ? -1 : 1));
}

/** Inlines `#/components/schemas/X` references (deep copies; a reference cycle is a contract error for a form). */
function deref(doc, schema, trail = []) {
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s, trail));
  if (schema === null || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    const { $ref, ...siblings } = schema;
    if (!$ref.startsWith(SCHEMA_PREFIX)) throw new Error(`forms: unsupported $ref ${$ref}`);
    const name = $ref.slice(SCHEMA_PREFIX.length);
    if (trail.includes(name)) throw new Error(`forms: recursive schema ${[...trail, name].join(' → ')}`);
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`forms: unknown schema ${$ref}`);
    const resolved = deref(doc, target, [...trail, name]);
    // In 3.1 a $ref may have siblings; they apply together, the siblings being the outer (winning) keywords.
    return Object.keys(siblings).length === 0 ? resolved : { allOf: [resolved], ...deref(doc, siblings, trail) };
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, deref(doc, v, trail)]));
}

/** Merges `over` onto `base`: properties merge per property, `required` is the union, any other keyword of `over` wins. */
function mergeInto(base, over) {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (key === 'properties' && out.properties) {
      const properties = { ...out.properties };
      for (const [name, schema] of Object.entries(value)) {
        properties[name] = properties[name] ? mergeInto(properties[name], schema) : schema;
      }
      out.properties = properties;
    } else if (key === 'required' && out.required) {
      out.required = [...new Set([...out.required, ...value])];
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Folds every `allOf` into one schema, depth first; the schema's own keywords win over its parts'. */
function mergeAllOf(schema) {
  if (Array.isArray(schema)) return schema.map(mergeAllOf);
  if (schema === null || typeof schema !== 'object') return schema;
  const { allOf, ...own } = schema;
  const flat = Object.fromEntries(
    Object.entries(own).map(([k, v]) => [k, k === 'properties' ? mapValues(v, mergeAllOf) : mergeAllOf(v)]),
  );
  if (!allOf) return flat;
  const parts = allOf.map(mergeAllOf);
  return [...parts, flat].reduce((acc, part) => mergeInto(acc, part), {});
}

const mapValues = (object, fn) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k, fn(v)]));

/**
 * Keeps JSON Schema keywords only, in a fixed order. Once allOf is folded into one object, `unevaluatedProperties:
 * false` means exactly `additionalProperties: false`, which every form validator understands.
 */
function clean(schema) {
  const source = { ...schema };
  if (source.unevaluatedProperties === false) {
    delete source.unevaluatedProperties;
    source.additionalProperties = false;
  }
  const unknown = Object.keys(source).filter(
    (k) => !JSON_SCHEMA_KEYWORDS.has(k) && k !== 'example' && k !== 'examples' && !k.startsWith('x-'),
  );
  if (unknown.length > 0) throw new Error(`forms: keyword(s) ${unknown.join(', ')} are not supported in a form schema`);
  const out = {};
  for (const key of KEYWORD_ORDER) {
    if (!(key in source)) continue;
    const value = source[key];
    if (key === 'properties') out.properties = mapValues(value, clean);
    else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) out[key] = clean(value);
    else out[key] = value;
  }
  return out;
}

/**
 * The form of one operation: its schema (dereferenced, allOf merged, OpenAPI-only keywords gone, `$id` the
 * operationId) and the contract's own wording for each field's pattern failure (`x-message`, e.g. "只能包含字母、数字和
 * 下划线"), so the form says what the server would say. The wording stays out of the schema: Ajv rejects unknown keywords.
 */
export function form(doc, operationId, bodySchema) {
  const merged = mergeAllOf(deref(doc, bodySchema));
  const schema = clean(merged);
  if (schema.type !== 'object' || !schema.properties)
    throw new Error(`forms: ${operationId} does not take a JSON object`);
  const messages = {};
  for (const name of Object.keys(merged.properties).sort()) {
    const message = merged.properties[name]['x-message'];
    if (typeof message === 'string') messages[name] = message;
  }
  return { operationId, schema: { $id: operationId, ...schema }, messages };
}

/**
 * Ajv's standalone code still reaches its runtime helpers with `require("…")` even in ESM mode. The browser and Node's
 * ESM loader have no `require`, so each one becomes an import. Those helpers are CommonJS modules: a bundler hands
 * `import * as m` their `exports`, Node hands `m.default` the whole `module.exports`; `pick` accepts both.
 */
function esmImports(code) {
  const imports = new Map();
  const body = code.replace(/require\("([^"]+)"\)\.(\w+)/g, (_, specifier, member) => {
    const file = specifier.endsWith('.js') ? specifier : `${specifier}.js`;
    if (!imports.has(file)) imports.set(file, `runtime${imports.size}`);
    const name = imports.get(file);
    return member === 'default' ? `pick(${name})` : `${name}.${member}`;
  });
  if (/\brequire\(/.test(body)) throw new Error('forms: a validator still calls require()');
  if (/new Ajv|from "ajv"|from 'ajv'/.test(body)) throw new Error('forms: a validator would construct Ajv');
  const lines = [...imports].map(([file, name]) => `import * as ${name} from ${JSON.stringify(file)};`);
  const usesPick = body.includes('pick(');
  const helper = usesPick ? '\nconst pick = (m) => (m.default && m.default.default) || m.default;' : '';
  return { lines, helper, body };
}

/** One ESM module exporting the precompiled validator of a form schema, importing only Ajv's and ajv-formats' runtime. */
export function validatorModule(schema, header) {
  const code = compileSchemaValidatorsCode(schema, {
    AjvClass: Ajv2020,
    ajvOptionsOverrides: { code: { esm: true, lines: false } },
  });
  const { lines, helper, body } = esmImports(code.replace(/^"use strict";\n?/, ''));
  return `${header}${lines.join('\n')}${helper}\n${body.trimEnd()}\n`;
}

/** src/api/generated/forms.gen.ts: every form schema, and the contract's pattern wording, as typed constants. */
export function formsModule(entries, header) {
  const schemas = entries.map(
    ({ operationId, schema }) => `  ${operationId}: ${JSON.stringify(schema, null, 2).replaceAll('\n', '\n  ')},`,
  );
  const messages = entries.map(({ operationId, messages }) => `  ${operationId}: ${JSON.stringify(messages)},`);
  return `${header}// The JSON request body of every operation, ready for @rjsf/core: $refs inlined, allOf merged, OpenAPI-only
// keywords removed, $id the operationId; then each platform kind's settings schema under its own name (the body of
// serviceSave's \`settings\`). Each has a precompiled validator in ./validators/<id>.gen.js.

export const formSchemas = {
${schemas.join('\n')}
} as const;

export type FormSchemaId = keyof typeof formSchemas;

/** The contract's x-message per field: what follows the field's title when its pattern does not match. */
export const formPatternMessages: Record<FormSchemaId, Readonly<Record<string, string>>> = {
${messages.join('\n')}
};
`;
}

/** Every form file, path (relative to the root) → contents. */
export function formFiles(doc, header) {
  const entries = jsonBodyOperations(doc).map(({ operationId, schema }) => form(doc, operationId, schema));
  // Platform kinds' settings schemas (named `…Settings`, see screens.config.ts): the edit form of a platform page.
  for (const name of Object.keys(doc.components.schemas)
    .filter((n) => n.endsWith('Settings'))
    .sort()) {
    entries.push(form(doc, name, { $ref: `${SCHEMA_PREFIX}${name}` }));
  }
  const files = new Map();
  files.set('src/api/generated/forms.gen.ts', formsModule(entries, header));
  for (const { operationId, schema } of entries) {
    files.set(`src/api/generated/validators/${operationId}.gen.js`, validatorModule(schema, header));
  }
  return files;
}
