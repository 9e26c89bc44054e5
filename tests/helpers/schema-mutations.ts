import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { rebaseRefs, SCHEMAS_ID, type JsonSchema, type OperationSpec } from '../../src/server/http/openapi.js';
import { exampleRequest, openapi } from './contract.js';

/**
 * Generates invalid requests from an operation's own query/body schema (openapi.yaml), so every operation, present
 * and future, is probed for bad input without per-operation code. Each mutation is derived from a schema keyword;
 * `isInvalid` then re-checks it against the contract with an independent Ajv before a test expects 400.
 */

/** One schema flattened: its $ref followed and its allOf merged, the stricter constraint winning. */
export interface MergedSchema {
  types?: string[];
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  patterns: string[];
  format?: string;
  title?: string;
  /** Every schema that describes each property (merged lazily by `mergeSchema`). */
  properties: Record<string, JsonSchema[]>;
  required: string[];
  /** additionalProperties: false or unevaluatedProperties: false somewhere in the merge. */
  closed: boolean;
}

const typesOf = (t: unknown): string[] | undefined =>
  t === undefined ? undefined : Array.isArray(t) ? t.map(String) : [String(t)];

/** `#/components/schemas/X` and `openapi.json#/$defs/X` both name `openapi.components.schemas.X`. */
export function resolveRef(ref: string): JsonSchema {
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  const target = openapi.components.schemas[name];
  if (!target) throw new Error(`openapi.yaml: cannot resolve ${ref}`);
  return target;
}

export function mergeSchema(schema: JsonSchema, into?: MergedSchema): MergedSchema {
  const m: MergedSchema = into ?? { patterns: [], properties: {}, required: [], closed: false };
  const s = schema as Record<string, any>;
  // Outermost keywords first (their title wins), then the $ref target, then each allOf member.
  const types = typesOf(s.type);
  if (types)
    m.types = m.types
      ? m.types.filter((t) => types.includes(t) || (t === 'integer' && types.includes('number')))
      : types;
  if (Array.isArray(s.enum)) m.enum = m.enum ? m.enum.filter((v) => s.enum.includes(v)) : [...s.enum];
  if (s.const !== undefined) m.enum = [s.const];
  if (typeof s.minLength === 'number') m.minLength = Math.max(m.minLength ?? 0, s.minLength);
  if (typeof s.maxLength === 'number') m.maxLength = Math.min(m.maxLength ?? Infinity, s.maxLength);
  if (typeof s.minimum === 'number') m.minimum = Math.max(m.minimum ?? -Infinity, s.minimum);
  if (typeof s.maximum === 'number') m.maximum = Math.min(m.maximum ?? Infinity, s.maximum);
  if (typeof s.pattern === 'string') m.patterns.push(s.pattern);
  if (typeof s.format === 'string') m.format ??= s.format;
  if (typeof s.title === 'string') m.title ??= s.title;
  for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>))
    (m.properties[name] ??= []).push(prop);
  if (Array.isArray(s.required)) for (const r of s.required) if (!m.required.includes(r)) m.required.push(r);
  if (s.additionalProperties === false || s.unevaluatedProperties === false) m.closed = true;
  if (typeof s.$ref === 'string') mergeSchema(resolveRef(s.$ref), m);
  for (const part of (s.allOf ?? []) as JsonSchema[]) mergeSchema(part, m);
  return m;
}

// ---- independent validation against the contract ---------------------------------------------------------------

function makeAjv(coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: SCHEMAS_ID, $defs: rebaseRefs(openapi.components.schemas) });
  return ajv;
}
const ajvBody = makeAjv(false);
const ajvQuery = makeAjv(true);
const compiled = new Map<string, ValidateFunction>();
function validatorFor(key: string, schema: JsonSchema, coerce: boolean): ValidateFunction {
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = (coerce ? ajvQuery : ajvBody).compile(rebaseRefs(schema))));
  return v;
}

/** What the server receives for a query value: the client sends String(v) in a URL, which carries UTF-8 only. */
export function transportQueryValue(value: unknown): string {
  return new URLSearchParams(new URLSearchParams({ v: String(value) }).toString()).get('v')!;
}

export type Part = 'query' | 'body';

export interface BadRequest {
  /** Test name: `<part>.<field>: <mutation>` or `body: <mutation>`. */
  name: string;
  part: Part;
  field?: string;
  query?: Record<string, unknown>;
  body?: unknown;
  rawBody?: string;
  /** Send no body at all (no content-type either). */
  noBody?: boolean;
  headers?: Record<string, string>;
}

/** True when the contract rejects this request as the server will receive it (a guard against generator mistakes). */
export function isInvalid(op: OperationSpec, req: BadRequest): boolean {
  if (req.part === 'query') {
    const received = Object.fromEntries(Object.entries(req.query ?? {}).map(([k, v]) => [k, transportQueryValue(v)]));
    return !validatorFor(`${op.operationId}:query`, op.querySchema!, true)(received);
  }
  if (req.noBody) return true; // every body generated here is declared required
  const mediaType = req.headers?.['content-type'];
  if (mediaType && !Object.keys(requestBodyOf(op)?.content ?? {}).includes(mediaType)) return true;
  let data: unknown;
  try {
    data = JSON.parse(req.rawBody ?? JSON.stringify(req.body));
  } catch {
    return true; // not JSON at all
  }
  return !validatorFor(`${op.operationId}:body`, op.bodySchema!, false)(data);
}

// ---- generation -------------------------------------------------------------------------------------------------

/** Odd text a user-facing single-line field should refuse where its schema says so. */
const ODD_TEXT: [label: string, text: string][] = [
  ['a NUL character', '\u0000'],
  ['a right-to-left override (U+202E)', '\u202E'],
  ['a lone surrogate (U+D800)', '\ud800'],
  ['a newline', '\n'],
  ['a zero-width space (U+200B)', '\u200B'],
];
const SQL_TEXT = "' OR 1=1 --";
const STRING_CANDIDATES = [
  'alice_01',
  'Passw0rd!',
  '123456',
  'AB12CD34',
  'alice@example.com',
  'https://example.com/a.js',
  '积分商城',
  'abcd',
  'a',
];

/** Whether the field's own schema accepts a value, as the server receives it (query values arrive as text). */
function propertyValidator(
  op: OperationSpec,
  part: Part,
  field: string,
  parts: JsonSchema[],
): (value: unknown) => boolean {
  const validate = validatorFor(`${op.operationId}:${part}:${field}`, { allOf: parts }, part === 'query');
  return (value) => validate(part === 'query' ? transportQueryValue(value) : structuredClone(value));
}

/** A value the field accepts, to build near-miss strings from (the example's value first). */
function sampleString(base: unknown, accepts: (v: unknown) => boolean, m: MergedSchema): string {
  const candidates = [base, ...STRING_CANDIDATES, 'a'.repeat(Math.max(1, m.minLength ?? 1))];
  const found = candidates.find((c) => typeof c === 'string' && accepts(c));
  return typeof found === 'string' ? found : 'a';
}

const insertMiddle = (s: string, odd: string) =>
  s.slice(0, Math.ceil(s.length / 2)) + odd + s.slice(Math.ceil(s.length / 2));

/** The value mutations for one property, each derived from a keyword of its merged schema. */
function valueMutations(
  m: MergedSchema,
  part: Part,
  sample: () => string,
  accepts: (v: unknown) => boolean,
): [string, unknown][] {
  const out: [string, unknown][] = [];
  const types = m.types;
  const numeric = !!types && (types.includes('integer') || types.includes('number')) && !types.includes('string');
  const isString = !!types && types.includes('string');
  // Wrong types. A query value is always text, so only a non-numeric text is a wrong type there.
  if (types) {
    if (numeric) out.push(['wrong type: a string where a number is expected', 'abc']);
    if (part === 'body') {
      // A JSON body is not coerced: a number written as text is a wrong type.
      if (numeric)
        out.push([
          'wrong type: a numeric string where a number is expected',
          String(Number.isFinite(m.minimum) ? m.minimum : 1),
        ]);
      if (isString && !types.includes('number') && !types.includes('integer'))
        out.push(['wrong type: a number where a string is expected', 123]);
      if (!types.includes('boolean')) out.push(['wrong type: a boolean', true]);
      if (!types.includes('object')) out.push(['wrong type: an object', { a: 1 }]);
      if (!types.includes('array')) out.push(['wrong type: an array', ['x']]);
      if (!types.includes('null')) out.push(['wrong type: null', null]);
    }
  }
  if (isString && !m.enum) {
    if (m.maxLength !== undefined) {
      const s = sample();
      out.push([`longer than maxLength ${m.maxLength}`, s[0]!.repeat(Math.max(0, m.maxLength + 1 - s.length)) + s]);
    }
    if ((m.minLength ?? 0) >= 1) out.push([`empty string (minLength ${m.minLength})`, '']);
    if (m.minLength !== undefined && m.minLength > 1)
      out.push([`shorter than minLength ${m.minLength}`, sample().slice(0, m.minLength - 1)]);
    if (m.patterns.length > 0 || m.format) {
      for (const [label, odd] of ODD_TEXT) {
        const s = sample();
        const v = insertMiddle(s.slice(0, (m.maxLength ?? Infinity) - odd.length), odd);
        if (!accepts(v)) out.push([`text with ${label}`, v]);
      }
      const padded = ` ${sample().slice(0, (m.maxLength ?? Infinity) - 2)} `;
      if (!accepts(padded)) out.push(['text with leading and trailing spaces', padded]);
      if (!accepts(SQL_TEXT)) out.push([`SQL-looking text ${JSON.stringify(SQL_TEXT)}`, SQL_TEXT]);
    }
    if (m.format === 'email') out.push(['not an email address', 'not-an-email']);
  }
  if (m.enum) {
    const strings = m.enum.every((v) => typeof v === 'string');
    const outside = strings ? `${String(m.enum[0])}_not_listed` : Math.max(...(m.enum as number[])) + 1;
    out.push([`outside the enum ${JSON.stringify(m.enum)}`, outside]);
  }
  if (numeric) {
    if (m.minimum !== undefined && Number.isFinite(m.minimum)) out.push([`below minimum ${m.minimum}`, m.minimum - 1]);
    if (m.maximum !== undefined && Number.isFinite(m.maximum)) out.push([`above maximum ${m.maximum}`, m.maximum + 1]);
    if (types.includes('integer') && !types.includes('number')) {
      const low = Number.isFinite(m.minimum) ? m.minimum! : 0;
      out.push(['a fractional number for an integer', low + 0.5]);
    }
  }
  // Only what the field itself refuses is a bad value (guards against an assumption above being wrong).
  return out.filter(([, v]) => !accepts(v));
}

/** The request part's invalid variants. `base` is the operation's valid example for that part. */
function partMutations(op: OperationSpec, part: Part, schema: JsonSchema, base: Record<string, unknown>): BadRequest[] {
  const object = mergeSchema(schema);
  const out: BadRequest[] = [];
  const make = (name: string, field: string | undefined, value: Record<string, unknown>): BadRequest => ({
    name: `${part}${field ? `.${field}` : ''}: ${name}`,
    part,
    ...(field ? { field } : {}),
    ...(part === 'query' ? { query: value } : { body: value }),
  });
  for (const [field, parts] of Object.entries(object.properties)) {
    const m = mergeSchema({ allOf: parts });
    const accepts = propertyValidator(op, part, field, parts);
    if (object.required.includes(field)) {
      const { [field]: _omitted, ...rest } = base;
      out.push(make('required property missing', field, rest));
    }
    let cached: string | undefined;
    const sample = () => (cached ??= sampleString(base[field], accepts, m));
    for (const [label, value] of valueMutations(m, part, sample, accepts)) {
      // A query value the URL cannot carry as such (a lone surrogate becomes U+FFFD) is not that mutation any more.
      if (part === 'query' && transportQueryValue(value) !== String(value)) continue;
      out.push(make(label, field, { ...base, [field]: value }));
    }
  }
  if (object.closed) {
    out.push(make('an unknown extra property', undefined, { ...base, unknownExtraField: part === 'query' ? 'x' : 1 }));
    // Prototype pollution attempts are unknown properties too (and must not reach a handler).
    if (part === 'body') {
      const json = JSON.stringify(base);
      const rest = json === '{}' ? '' : `,${json.slice(1, -1)}`;
      out.push({ name: 'body: a "__proto__" key', part, rawBody: `{"__proto__":{"isAdmin":true}${rest}}` });
      out.push({
        name: 'body: a "constructor.prototype" key',
        part,
        rawBody: `{"constructor":{"prototype":{"isAdmin":true}}${rest}}`,
      });
    }
  }
  return out;
}

const requestBodyOf = (op: OperationSpec): any => (openapi.paths as any)[op.path][op.method.toLowerCase()].requestBody;

/** Every invalid request generated for an operation (empty when it takes neither query nor body). */
export function badRequests(op: OperationSpec): BadRequest[] {
  const example = exampleRequest(op.operationId);
  const out: BadRequest[] = [];
  if (op.querySchema) out.push(...partMutations(op, 'query', op.querySchema, { ...(example.query ?? {}) }));
  if (op.bodySchema) {
    const base = (example.body ?? {}) as Record<string, unknown>;
    const withQuery = example.query ? { query: example.query } : {};
    out.push(...partMutations(op, 'body', op.bodySchema, base).map((r) => ({ ...r, ...withQuery })));
    const whole = (name: string, extra: Partial<BadRequest>): BadRequest => ({
      name: `body: ${name}`,
      part: 'body',
      ...withQuery,
      ...extra,
    });
    out.push(whole('malformed JSON', { rawBody: '{bad' }));
    out.push(whole('a JSON array instead of an object', { rawBody: JSON.stringify([base]) }));
    if (requestBodyOf(op)?.required === true) {
      out.push(whole('an empty body with a JSON content type', { rawBody: '' }));
      out.push(whole('no body at all', { noBody: true }));
    }
    // Media types the contract does not list for the body: a cross-site form post, and plain text.
    const declared = Object.keys(requestBodyOf(op)?.content ?? {});
    const formBody = new URLSearchParams(Object.entries(base).map(([k, v]) => [k, String(v)])).toString();
    if (!declared.includes('application/x-www-form-urlencoded')) {
      out.push(
        whole('a form-encoded body', {
          rawBody: formBody,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      );
    }
    if (!declared.includes('text/plain')) {
      out.push(
        whole('a text/plain body', { rawBody: JSON.stringify(base), headers: { 'content-type': 'text/plain' } }),
      );
    }
  }
  return out;
}
