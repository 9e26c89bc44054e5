import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { join } from 'node:path';
import {
  listOperations,
  loadOpenApi,
  rebaseRefs,
  SCHEMAS_ID,
  type OperationSpec,
} from '../../src/server/http/openapi.js';

export const openapi = loadOpenApi(join(process.cwd(), 'openapi.yaml'));
export const operations: OperationSpec[] = listOperations(openapi);
export const operationById = new Map(operations.map((op) => [op.operationId, op]));

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: SCHEMAS_ID, $defs: rebaseRefs(openapi.components.schemas) });

const responseValidators = new Map<string, ValidateFunction>();

function resolveResponse(response: any): any {
  if (typeof response?.$ref === 'string') return openapi.components.responses?.[response.$ref.split('/').pop()];
  return response;
}

/** The response schema openapi.yaml declares for this operation and status, compiled once. */
export function responseValidator(operationId: string, status: number): ValidateFunction | undefined {
  const key = `${operationId}:${status}`;
  if (responseValidators.has(key)) return responseValidators.get(key);
  const op = operationById.get(operationId)!;
  const declared = (openapi.paths as any)[op.path][op.method.toLowerCase()].responses;
  // The contract's description: any operation may answer 503 while the database cannot answer.
  const raw =
    declared[String(status)] ?? (status === 503 ? openapi.components.responses?.ServiceUnavailable : undefined);
  const schema = resolveResponse(raw)?.content?.['application/json']?.schema;
  const validate = schema ? ajv.compile(rebaseRefs(schema)) : undefined;
  if (validate) responseValidators.set(key, validate);
  return validate;
}

/** Example request of an operation, as openapi.yaml gives it (used to drive every operation generically). */
export function exampleRequest(operationId: string): {
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
} {
  const op = operationById.get(operationId)!;
  const raw = (openapi.paths as any)[op.path][op.method.toLowerCase()];
  const query: Record<string, unknown> = {};
  const headers: Record<string, string> = {};
  for (const p of raw.parameters ?? []) {
    const param = typeof p.$ref === 'string' ? (openapi.components.parameters as any)[p.$ref.split('/').pop()] : p;
    // One exploded object (a gateway's notification): its example is the whole query string.
    if (param.in === 'query' && param.style === 'form' && param.explode === true) Object.assign(query, param.example);
    if (!param.required) continue;
    if (param.in === 'header') headers[param.name] = String(param.example);
    else query[param.name] = param.example;
  }
  const body =
    raw.requestBody?.content?.['application/json']?.example ??
    raw.requestBody?.content?.['application/x-www-form-urlencoded']?.example;
  return {
    ...(Object.keys(query).length ? { query } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
}
