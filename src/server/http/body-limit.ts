import { schemaLayers, type JsonSchema, type ResolveRef as Resolve } from './schema-layers.js';

// Each operation's body limit follows from its own contract: the largest JSON its request schema admits, as a JSON
// encoder writes it. A string of n characters (code points) is at most 2 + 6n bytes (`\u0001` is 6 bytes; a character
// outside the BMP is 4 bytes of UTF-8 for 1 code point), a number at most 24, and an object or array the sum of its
// parts with their keys, quotes, colons and commas. A schema that bounds nothing (an open object, a string without
// maxLength) gets `UNBOUNDED_BODY_LIMIT`. Whitespace a client adds is not counted: the limit is the contract's size.

/** The limit of a body whose schema leaves its size open (e.g. a service's settings, checked by family later). */
export const UNBOUNDED_BODY_LIMIT = 256 * 1024;
/** The smallest limit any body gets: room for whitespace and a client's field order. */
const FLOOR = 4 * 1024;

const NUMBER_BYTES = 24;
const BYTES_PER_CHARACTER = 6;

const minOf = (values: unknown[]): number | undefined => {
  const numbers = values.filter((v): v is number => typeof v === 'number');
  return numbers.length ? Math.min(...numbers) : undefined;
};

/** The largest JSON text (bytes) the schema admits; Infinity when it leaves the size open. */
export function maxJsonBytes(schema: JsonSchema, resolve: Resolve): number {
  const layers = schemaLayers(schema, resolve);
  const alternatives = layers.flatMap((l) => [
    ...((l.oneOf as JsonSchema[] | undefined) ?? []),
    ...((l.anyOf as JsonSchema[] | undefined) ?? []),
  ]);
  if (alternatives.length) return Math.max(...alternatives.map((a) => maxJsonBytes(a, resolve)));
  const values = layers.flatMap((l) => (l.const !== undefined ? [l.const] : ((l.enum as unknown[] | undefined) ?? [])));
  if (values.length) return Math.max(...values.map((v) => Buffer.byteLength(JSON.stringify(v))));
  const types = new Set(layers.flatMap((l) => (l.type === undefined ? [] : [l.type].flat().map(String))));
  const sizes = [...types].map((type) => {
    switch (type) {
      case 'null':
        return 4;
      case 'boolean':
        return 5;
      case 'integer':
      case 'number':
        return NUMBER_BYTES;
      case 'string': {
        const maxLength = minOf(layers.map((l) => l.maxLength));
        return maxLength === undefined ? Infinity : 2 + BYTES_PER_CHARACTER * maxLength;
      }
      case 'array': {
        const maxItems = minOf(layers.map((l) => l.maxItems));
        const items = layers.map((l) => l.items as JsonSchema | undefined).find(Boolean);
        if (maxItems === undefined || !items) return Infinity;
        return 2 + maxItems * (maxJsonBytes(items, resolve) + 1);
      }
      case 'object':
        return objectBytes(layers, resolve);
      default:
        return Infinity;
    }
  });
  return sizes.length ? Math.max(...sizes) : Infinity;
}

function objectBytes(layers: JsonSchema[], resolve: Resolve): number {
  const closed = layers.some((l) => l.additionalProperties === false || l.unevaluatedProperties === false);
  if (!closed) return Infinity;
  const properties = new Map<string, JsonSchema[]>();
  for (const layer of layers)
    for (const [name, property] of Object.entries((layer.properties ?? {}) as Record<string, JsonSchema>))
      properties.set(name, [...(properties.get(name) ?? []), property]);
  let bytes = 2;
  for (const [name, schemas] of properties)
    bytes += Buffer.byteLength(JSON.stringify(name)) + 2 + maxJsonBytes({ allOf: schemas }, resolve);
  return bytes;
}

/** The body limit of an operation whose body has this schema. */
export function bodyLimitOf(schema: JsonSchema, resolve: Resolve): number {
  const bytes = maxJsonBytes(schema, resolve);
  return Number.isFinite(bytes) ? Math.max(FLOOR, bytes) : UNBOUNDED_BODY_LIMIT;
}
