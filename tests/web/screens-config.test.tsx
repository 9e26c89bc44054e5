import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/api/generated/operations.gen';
import { formSchemas } from '../../src/api/generated/forms.gen';
import { platformScreens, screens } from '../../screens.config';
import { signedInMessages as w } from '../../src/web/i18n/zh-CN-signed-in';

// The screen map against the seed's route table and the contract.

const SEED_ROUTES = [
  '/',
  '/login',
  '/register',
  '/clockInfo',
  '/mall',
  '/wk',
  '/subordinate',
  '/gxy',
  '/gxy/update',
  '/xxt',
  '/xxt/update',
  '/clockVip',
  '/xxy',
  '/xxy/update',
  '/qzt',
  '/qzt/update',
  '/sxzs',
  '/sxzs/update',
  '/zxjy',
  '/zxjy/update',
  '/xyb',
  '/xyb/update',
  '/hzj',
  '/hzj/update',
  '/system',
  '/tasks',
  '/ai/config',
  '/transferCoin',
  '/coinChange',
  '/500',
  '/mall_management',
  '/platform_management',
  '/add_platform',
  '/coin_detail',
  '/update_platform',
  '/update_mall',
  '/add_mall',
  '/notice',
  '/about',
];

const CJK = /[\u4e00-\u9fff]/;

describe('screens.config.ts', () => {
  it('declares every route of the seed, once, with a Chinese title', () => {
    const paths = screens.map((s) => s.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const route of SEED_ROUTES) expect(paths, route).toContain(route);
    expect(SEED_ROUTES.length).toBe(39); // every row of the seed's route table
    for (const s of screens) expect(s.title, s.path).toMatch(CJK);
  });

  it('opens exactly /login, /register, /500, the cashier and the two policies to visitors, and hides the frame only on login, register and the cashier', () => {
    expect(
      screens
        .filter((s) => s.access === 'public')
        .map((s) => s.path)
        .sort(),
    ).toEqual(['/500', '/cashier', '/login', '/privacy', '/register', '/terms']);
    expect(
      screens
        .filter((s) => s.chrome === 'bare')
        .map((s) => s.path)
        .sort(),
    ).toEqual(['/cashier', '/login', '/register']);
  });

  it('gives the fixed notice texts of the seed to /500, /mall_management and /platform_management', () => {
    const notice = (path: string) => screens.find((s) => s.path === path)?.notice;
    expect(notice('/500')).toBe('服务器异常，请联系管理员');
    expect(notice('/mall_management')).toBe(w.notice.mallManagement);
    expect(notice('/mall_management')).toContain('左滑');
    expect(notice('/platform_management')).toContain('不能删除');
    expect(notice('/platform_management')).toContain('上架或下架');
  });

  it('names only operations of the contract, and shows them only to roles the contract allows', () => {
    for (const s of screens) {
      const named =
        s.kind === 'list'
          ? [s.operation]
          : s.kind === 'form'
            ? [s.submit, ...(s.load ? [s.load.operation] : [])]
            : s.kind === 'detail'
              ? [s.operation]
              : [];
      for (const op of named) {
        const info = OPERATIONS[op as keyof typeof OPERATIONS];
        expect(info, `${s.path} names ${op}`).toBeDefined();
        const roles: readonly string[] = info.roles;
        if (s.access !== 'public' && !roles.includes('visitor')) {
          for (const role of s.access)
            expect(roles, `${s.path}: ${role} may open it but not call ${op}`).toContain(role);
        }
      }
      if (s.kind === 'form') expect(formSchemas[s.submit as keyof typeof formSchemas], s.path).toBeDefined();
    }
  });

  it('makes a platform page and its edit page from one entry', () => {
    const [service, edit] = platformScreens({ code: 'demo', title: '演示平台', settings: 'ClockInSettings' });
    expect(service).toMatchObject({ path: '/demo', title: '演示平台' });
    expect(edit).toMatchObject({ path: '/demo/update', title: '修改演示平台信息' });
  });

  it('shows my page the logout action in its header', () => {
    expect(screens.find((s) => s.path === '/about')?.headerRight).toBe('logout');
    expect(screens.find((s) => s.path === '/')?.back).toBe(false);
  });
});
