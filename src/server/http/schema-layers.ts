/** A JSON Schema (2020-12), as openapi.yaml writes one. */
export type JsonSchema = Record<string, unknown>;

/** Names a component schema by a `$ref` (`#/components/schemas/X` or `openapi.json#/$defs/X`). */
export type ResolveRef = (ref: string) => JsonSchema | undefined;

/**
 * The schemas that describe one value, outermost first: the schema itself, then its `$ref`'s final target and each
 * `allOf` member, each expanded the same way. Validation messages and body limits both read a value through these.
 */
export function schemaLayers(schema: JsonSchema | undefined, resolve: ResolveRef): JsonSchema[] {
  if (!schema) return [];
  const out: JsonSchema[] = [schema];
  let target: JsonSchema | undefined = schema;
  while (typeof target?.$ref === 'string') target = resolve(target.$ref);
  if (target && target !== schema) out.push(...schemaLayers(target, resolve));
  for (const part of (schema.allOf as JsonSchema[] | undefined) ?? []) out.push(...schemaLayers(part, resolve));
  return out;
}
