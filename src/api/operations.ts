// Type helpers over the generated contract: what each operation takes and what its envelope's data holds.
// Shared by the server's handler registry and the web app's screen config, so both fail the type check together.
import type { components, operations } from './generated/schema';

export type OperationId = keyof operations;
export type Schemas = components['schemas'];

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type RequestQuery<K extends OperationId> = operations[K]['parameters'] extends { query?: infer Q }
  ? [Q] extends [never]
    ? undefined
    : NonNullable<Q>
  : undefined;

export type RequestBody<K extends OperationId> = operations[K] extends { requestBody: infer R }
  ? JsonContent<R>
  : undefined;

export type ResponseData<K extends OperationId> =
  JsonContent<operations[K]['responses'][200]> extends { data: infer D } ? D : never;
