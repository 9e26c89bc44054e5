import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { OPERATIONS, ROLES, type Role } from '../../api/generated/operations.gen.js';
import type { OperationId } from '../../api/operations.js';
import { bodyLimitOf } from './body-limit.js';
import type { JsonSchema } from './schema-layers.js';

export type { JsonSchema, Role };

export interface OperationSpec {
  operationId: string;
  method: 'GET' | 'POST';
  path: string;
  roles: readonly Role[];
  /** Needs the anti-CSRF header: every POST, and the seed's GETs that change state. */
  stateChanging: boolean;
  /** `x-before-two-factor`: open to an admin who must still turn two-factor sign-in on (ADMIN_2FA=required). */
  beforeTwoFactor: boolean;
  querySchema?: JsonSchema;
  /** Declared request headers (e.g. Idempotency-Key), by their lower-case names. */
  headersSchema?: JsonSchema;
  bodySchema?: JsonSchema;
  /** The largest body the contract admits for it, in bytes (body-limit.ts); bigger is refused before parsing. */
  bodyLimit?: number;
  /** Answers a CSV file instead of the JSON envelope. */
  csv: boolean;
  /** Answers a server-sent event stream (GET /api/events) instead of the JSON envelope. */
  eventStream: boolean;
  /**
   * `x-gateway-callback`: a payment gateway's notification. Its parameters are one free-form object (query, or an
   * application/x-www-form-urlencoded body), and it answers plain text (`success` / `fail`) instead of the envelope.
   */
  gatewayCallback: boolean;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Record<string, any>>>;
  components: { schemas: Record<string, JsonSchema>; parameters: Record<string, any>; responses?: Record<string, any> };
  [key: string]: unknown;
}

/** Schemas are handed to Ajv under this id, so `#/components/schemas/X` becomes `SCHEMA_ID#/$defs/X`. */
export const SCHEMAS_ID = 'openapi.json';

export function loadOpenApi(file: string): OpenApiDocument {
  return parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** Deep copy with component references pointed at the shared $defs document. */
export function rebaseRefs<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, v) =>
      key === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', `${SCHEMAS_ID}#/$defs/`) : v,
    ),
  ) as T;
}

function resolveParameter(doc: OpenApiDocument, parameter: any): any {
  if (typeof parameter.$ref === 'string') {
    const name = parameter.$ref.replace('#/components/parameters/', '');
    const target = doc.components.parameters[name];
    if (!target) throw new Error(`openapi.yaml: unknown parameter ${parameter.$ref}`);
    return target;
  }
  return parameter;
}

function querySchemaOf(doc: OpenApiDocument, parameters: any[] | undefined): JsonSchema | undefined {
  const query = (parameters ?? []).map((p) => resolveParameter(doc, p)).filter((p) => p.in === 'query');
  if (query.length === 0) return undefined;
  // One exploded object parameter (a gateway's notification): the query string is that object.
  if (query.length === 1 && query[0].style === 'form' && query[0].explode === true) return rebaseRefs(query[0].schema);
  return rebaseRefs({
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
    required: query.filter((p) => p.required).map((p) => p.name),
  });
}

/** Declared headers only; every other header a browser or proxy sends is left alone. */
function headersSchemaOf(doc: OpenApiDocument, parameters: any[] | undefined): JsonSchema | undefined {
  const headers = (parameters ?? []).map((p) => resolveParameter(doc, p)).filter((p) => p.in === 'header');
  if (headers.length === 0) return undefined;
  return rebaseRefs({
    type: 'object',
    properties: Object.fromEntries(headers.map((p) => [p.name.toLowerCase(), p.schema])),
    required: headers.filter((p) => p.required).map((p) => p.name.toLowerCase()),
  });
}

/** The generated map derives the state-changing rule once (codegen); the server reads it, not a copy of it. */
function generatedInfo(operationId: string) {
  const info = (OPERATIONS as Partial<Record<string, (typeof OPERATIONS)[OperationId]>>)[operationId];
  if (!info)
    throw new Error(`openapi.yaml: ${operationId} is not in the generated operation map (run npm run codegen)`);
  return info;
}

export function listOperations(doc: OpenApiDocument): OperationSpec[] {
  const operations: OperationSpec[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const upper = method.toUpperCase();
      if (upper !== 'GET' && upper !== 'POST') throw new Error(`openapi.yaml: ${method} ${path} is not GET or POST`);
      const roles = op['x-roles'] as Role[] | undefined;
      if (
        !op.operationId ||
        !Array.isArray(roles) ||
        roles.length === 0 ||
        roles.some((r) => !(ROLES as readonly string[]).includes(r))
      ) {
        throw new Error(`openapi.yaml: ${upper} ${path} needs an operationId and x-roles from ${ROLES.join(', ')}`);
      }
      const gatewayCallback = op['x-gateway-callback'] === true;
      const body =
        op.requestBody?.content?.['application/json']?.schema ??
        (gatewayCallback ? op.requestBody?.content?.['application/x-www-form-urlencoded']?.schema : undefined);
      operations.push({
        operationId: op.operationId,
        method: upper,
        path,
        roles,
        stateChanging: generatedInfo(op.operationId).stateChanging,
        beforeTwoFactor: op['x-before-two-factor'] === true,
        querySchema: querySchemaOf(doc, op.parameters),
        headersSchema: headersSchemaOf(doc, op.parameters),
        bodySchema: body ? rebaseRefs(body) : undefined,
        bodyLimit: body
          ? bodyLimitOf(body, (ref) => doc.components.schemas[ref.slice(ref.lastIndexOf('/') + 1)])
          : undefined,
        csv: op.responses?.['200']?.content?.['text/csv'] !== undefined,
        eventStream: op.responses?.['200']?.content?.['text/event-stream'] !== undefined,
        gatewayCallback,
      });
    }
  }
  return operations;
}
