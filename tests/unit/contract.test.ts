import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/api/generated/operations.gen';
import { handlers } from '../../src/server/handlers';
import { openapi, operations } from '../helpers/contract';

describe('openapi.yaml and the code agree', () => {
  const ids = operations.map((op) => op.operationId).sort();

  it('every operation has exactly one handler, and every handler an operation', () => {
    expect(Object.keys(handlers).sort()).toEqual(ids);
  });

  it('operationIds are unique', () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the generated operation map lists every operation with its method, path and roles', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(ids);
    for (const op of operations) {
      const generated = OPERATIONS[op.operationId as keyof typeof OPERATIONS];
      expect(generated).toMatchObject({
        method: op.method.toLowerCase(),
        path: op.path,
        roles: op.roles,
        stateChanging: op.stateChanging,
      });
    }
  });

  it('keeps the seed paths under /api and declares the envelope errors each operation can answer', () => {
    for (const op of operations) {
      expect(op.path.startsWith('/api/')).toBe(true);
      const responses = (openapi.paths as any)[op.path][op.method.toLowerCase()].responses;
      expect(Object.keys(responses), op.operationId).toContain('200');
      // A gateway's callback answers `success` / `fail` in plain text, whatever happens (routes.ts): only 200.
      if (op.gatewayCallback) {
        expect(Object.keys(responses), op.operationId).toEqual(['200']);
        expect(Object.keys(responses['200'].content), op.operationId).toEqual(['text/plain']);
        continue;
      }
      expect(Object.keys(responses), op.operationId).toContain('500');
      if (!op.roles.includes('visitor')) expect(Object.keys(responses), op.operationId).toContain('401');
      if (op.bodySchema || op.querySchema) expect(Object.keys(responses), op.operationId).toContain('400');
    }
  });

  it('covers the seed operations of this issue with their exact paths and methods', () => {
    const seed = [
      'POST /api/basicInformation/add',
      'POST /api/basicInformation/delete',
      'GET /api/basicInformation/get',
      'GET /api/basicInformation/list',
      'POST /api/basicInformation/list/page',
      'POST /api/basicInformation/update',
      'POST /api/user/add',
      'GET /api/user/ban',
      'POST /api/user/bind/login',
      'POST /api/user/boss/update/password',
      'POST /api/user/delete',
      'GET /api/user/get',
      'GET /api/user/get/invitationCode',
      'GET /api/user/get/login',
      'GET /api/user/getCaptcha',
      'GET /api/user/getUserInfo',
      'GET /api/user/list',
      'GET /api/user/list/page',
      'POST /api/user/login',
      'POST /api/user/logout',
      'POST /api/user/register',
      'POST /api/user/subordinate',
      'GET /api/user/unBan',
      'POST /api/user/unbindEmail',
      'POST /api/user/update',
      'POST /api/user/update/boss',
      'POST /api/user/update/password',
    ];
    const present = new Set(operations.map((op) => `${op.method} ${op.path}`));
    for (const s of seed) expect(present.has(s), s).toBe(true);
  });
});
