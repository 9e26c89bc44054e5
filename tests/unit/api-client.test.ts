import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, createApi, type ApiHooks } from '../../src/api/client';
import { messages } from '../../src/web/i18n/zh-CN';

type Reply = { status: number; statusText?: string; body: unknown; contentType?: string };

function fakeFetch(reply: Reply | (() => Promise<never>)) {
  const calls: Request[] = [];
  const fetch = vi.fn(async (input: Request) => {
    calls.push(input);
    if (typeof reply === 'function') return reply();
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    return new Response(text, {
      status: reply.status,
      statusText: reply.statusText ?? '',
      headers: { 'content-type': reply.contentType ?? 'application/json' },
    });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

const spies = () => ({
  toast: vi.fn<ApiHooks['toast']>(),
  redirectToLogin: vi.fn<ApiHooks['redirectToLogin']>(),
  logError: vi.fn<ApiHooks['logError']>(),
});
let hooks = spies();
beforeEach(() => {
  hooks = spies();
});

const api = (reply: Reply | (() => Promise<never>)) => {
  const f = fakeFetch(reply);
  return { ...createApi(hooks, messages, { baseUrl: 'http://app.test', fetch: f.fetch }), calls: f.calls };
};

describe('the API client', () => {
  it('answers the envelope data on code 0 and sends credentials and the anti-CSRF header', async () => {
    const a = api({ status: 200, body: { code: 0, message: 'ok', data: { id: 1, websiteName: '站' } } });
    const data = await a.call('basicInformationGet', { query: { id: 1 } });
    expect(data).toEqual({ id: 1, websiteName: '站' });
    const request = a.calls[0]!;
    expect(request.url).toBe('http://app.test/api/basicInformation/get?id=1');
    expect(request.method).toBe('GET');
    expect(request.credentials).toBe('include');
    expect(request.headers.get('x-requested-with')).toBe('XMLHttpRequest');
    expect(hooks.toast).not.toHaveBeenCalled();
  });

  it('posts JSON bodies to the operation path', async () => {
    const a = api({ status: 200, body: { code: 0, message: 'ok', data: 7 } });
    await a.call('userRegister', {
      body: { userAccount: 'alice', userPassword: 'Passw0rd!', checkPassword: 'Passw0rd!' },
    });
    const request = a.calls[0]!;
    expect(request.method).toBe('POST');
    expect(new URL(request.url).pathname).toBe('/api/user/register');
    expect(await request.json()).toEqual({
      userAccount: 'alice',
      userPassword: 'Passw0rd!',
      checkPassword: 'Passw0rd!',
    });
  });

  it('writes the query as openapi-fetch did: values encoded, empty ones left out, in the order given', async () => {
    const a = api({ status: 200, body: { code: 0, message: 'ok', data: [] } });
    await a.call('basicInformationList', { query: { coinName: '积分 & co', id: undefined, status: 1 } });
    expect(new URL(a.calls[0]!.url).search).toBe('?coinName=%E7%A7%AF%E5%88%86%20%26%20co&status=1');
  });

  it('sends a JSON content type with a body only', async () => {
    const a = api({ status: 200, body: { code: 0, message: 'ok', data: 1 } });
    await a.call('basicInformationGet', { query: { id: 1 } });
    expect(a.calls[0]!.headers.get('content-type')).toBeNull();
    expect(a.calls[0]!.body).toBeNull();
    await a.call('userRegister', {
      body: { userAccount: 'alice', userPassword: 'Passw0rd!', checkPassword: 'Passw0rd!' },
    });
    expect(a.calls[1]!.headers.get('content-type')).toBe('application/json');
  });

  it.each([40001, 40100])('toasts the server message and goes to /login on code %i', async (code) => {
    const a = api({ status: 401, body: { code, message: '登录已失效，请重新登录', data: null } });
    const error = await a.call('userGetLogin').catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe(code);
    expect(hooks.toast).toHaveBeenCalledWith('登录已失效，请重新登录');
    expect(hooks.redirectToLogin).toHaveBeenCalledOnce();
  });

  it.each([40001, 40100])(
    'says "sign in again" even for a quiet call, and marks the failure as shown, on code %i',
    async (code) => {
      const a = api({ status: 401, body: { code, message: '登录已失效，请重新登录', data: null } });
      const error = await a.call('userGetLogin', { quiet: true }).catch((e) => e);
      expect(error).toMatchObject({ shown: true, signInAgain: true });
      expect(hooks.toast).toHaveBeenCalledOnce();
    },
  );

  it('logs and toasts any other nonzero code without redirecting', async () => {
    const a = api({ status: 409, body: { code: 40900, message: '账号已被占用', data: null } });
    await expect(
      a.call('userAdd', { body: { userAccount: 'alice', userPassword: 'Passw0rd!' } }),
    ).rejects.toMatchObject({ code: 40900, message: '账号已被占用' });
    expect(hooks.logError).toHaveBeenCalledWith(40900, '账号已被占用');
    expect(hooks.toast).toHaveBeenCalledWith('账号已被占用');
    expect(hooks.redirectToLogin).not.toHaveBeenCalled();
  });

  it('lets a form keep the failure to itself with quiet', async () => {
    const a = api({ status: 400, body: { code: 40000, message: '账号或密码错误', data: null } });
    await expect(
      a.call('userLogin', { body: { userAccount: 'alice', userPassword: 'x' }, quiet: true }),
    ).rejects.toMatchObject({ code: 40000, shown: false });
    expect(hooks.toast).not.toHaveBeenCalled();
  });

  it.each([
    ['the offensive message', '傻逼'],
    ['a raw exception', 'java.lang.NullPointerException at foo'],
    ['raw SQL', 'SQLITE_ERROR: syntax error near "from"'],
    ['an empty message', ''],
  ])('shows 获取失败，稍后再试 instead of %s', async (_name, message) => {
    const a = api({ status: 500, body: { code: 50000, message, data: null } });
    await expect(a.call('basicInformationGet', { query: { id: 1 } })).rejects.toMatchObject({
      message: '获取失败，稍后再试',
    });
    expect(hooks.toast).toHaveBeenCalledWith('获取失败，稍后再试');
  });

  it.each([
    [400, '请求参数错误（400）'],
    [401, '未登录或登录已过期（401）'],
    [403, '没有权限访问（403）'],
    [404, '请求的资源不存在（404）'],
    [500, '服务器异常，请联系管理员（500）'],
    [502, '网关错误，请稍后再试（502）'],
    [503, '服务暂时不可用，请稍后再试（503）'],
  ])('maps a non-envelope HTTP %i to its catalogue message', async (status, message) => {
    const a = api({ status, body: '<html>proxy error</html>', contentType: 'text/html' });
    const error = await a.call('basicInformationGet', { query: { id: 1 } }).catch((e) => e);
    expect(error).toMatchObject({ kind: 'http', message, status });
    expect(hooks.toast).toHaveBeenCalledWith(message);
  });

  it('raises a generic error with status, status text and body for any other failing status', async () => {
    const a = api({ status: 418, statusText: "I'm a teapot", body: 'short and stout', contentType: 'text/plain' });
    const error = await a.call('basicInformationGet', { query: { id: 1 } }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.details).toEqual({ status: 418, statusText: "I'm a teapot", body: 'short and stout' });
    expect(error.message).toBe("请求失败（418 I'm a teapot）");
  });

  it("answers 'Request aborted' when the call is cancelled", async () => {
    const controller = new AbortController();
    const a = api(() => Promise.reject(new DOMException('The operation was aborted.', 'AbortError')));
    controller.abort();
    const error = await a.call('userGetLogin', { signal: controller.signal }).catch((e) => e);
    expect(error).toMatchObject({ kind: 'aborted', message: 'Request aborted' });
    expect(hooks.toast).not.toHaveBeenCalled();
  });

  it('sends an Idempotency-Key with an operation that moves coins: the held one, else a fresh one per call', async () => {
    const a = api({ status: 200, body: { code: 0, message: 'ok', data: { coin: 5 } } });
    const transfer = { body: { userAccount: 'bob', coin: 5 } };
    await a.call('userTransferCoin', { ...transfer, idempotencyKey: 'intent-1' });
    await a.call('userTransferCoin', transfer);
    await a.call('userTransferCoin', transfer);
    const keys = a.calls.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toBe('intent-1');
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).not.toBe(keys[1]);
    await a.call('basicInformationGet', { query: { id: 1 } });
    expect(a.calls[3]!.headers.get('idempotency-key')).toBeNull();
  });

  it.each([40001, 40100])('takes code %i as the answer of a probe: no toast, no redirect', async (code) => {
    const a = api({ status: 401, body: { code, message: '未登录', data: null } });
    const error = await a.call('userGetLogin', { probe: true }).catch((e) => e);
    expect(error).toMatchObject({ signInAgain: true, shown: false });
    expect(hooks.toast).not.toHaveBeenCalled();
    expect(hooks.redirectToLogin).not.toHaveBeenCalled();
  });

  it('fails a 2xx that is not an envelope with 获取失败，稍后再试', async () => {
    const a = api({ status: 200, body: { id: 1 } });
    await expect(a.call('basicInformationGet', { query: { id: 1 } })).rejects.toMatchObject({
      kind: 'http',
      message: '获取失败，稍后再试',
    });
    expect(hooks.toast).toHaveBeenCalledWith('获取失败，稍后再试');
  });

  it('passes network errors on unhandled', async () => {
    const networkError = new TypeError('Failed to fetch');
    const a = api(() => Promise.reject(networkError));
    await expect(a.call('userGetLogin')).rejects.toBe(networkError);
    expect(hooks.toast).not.toHaveBeenCalled();
  });
});
