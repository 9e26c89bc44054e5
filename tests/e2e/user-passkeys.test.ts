import { describe, expect, it } from 'vitest';
import type { RequestBody } from '../../src/api/operations';
import { SoftAuthenticator } from '../helpers/soft-authenticator';
import {
  ApiSession,
  answerDialog,
  baseUrl,
  browserAndAdmin,
  newPhone,
  newSignedInUser,
  openScreen,
  rowAction,
  shot,
  toast,
} from './helpers';

// 用户详情 → 通行密钥: an admin takes one passkey of a lost phone away. The user's phone signed in with it is on the
// sign-in page at once (its event stream's last event), while the user's other session goes on. The passkey is made
// by a software authenticator answering for the server's PUBLIC_ORIGIN (http://localhost:<port>), through the API.

const env = browserAndAdmin();

/** What the software authenticator answers, as the contract types the browser's answers. */
type Credential = RequestBody<'passkeyAdd'>['credential'];
type Assertion = RequestBody<'userLoginPasskey'>['credential'];

describe('an admin removes one passkey of a user', () => {
  it('from 用户详情 → 通行密钥: confirms with its name, and the phone signed in with it shows the sign-in page', async () => {
    const { user, api } = await newSignedInUser('pk');
    const origin = `http://localhost:${new URL(baseUrl()).port}`;
    const authenticator = new SoftAuthenticator(origin);
    const options = await api.ok('passkeyRegistrationOptions');
    await api.ok('passkeyAdd', {
      body: { name: '丢了的手机', credential: authenticator.register(options) as Credential },
    });
    const lostPhone = new ApiSession();
    const login = await lostPhone.ok('userLoginPasskeyOptions');
    await lostPhone.call('userLoginPasskey', { body: { credential: authenticator.authenticate(login) as Assertion } });
    expect((await lostPhone.call('userGetLogin')).code).toBe(0);

    const phone = await newPhone(env.browser, { session: lostPhone, announcementRead: true });
    const admin = await newPhone(env.browser, { session: env.adminApi, announcementRead: true });
    try {
      const streaming = phone.page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/api/events' && r.status() === 200,
      );
      await openScreen(phone.page, '/mall', '积分商城');
      await streaming;

      const { page } = admin;
      await openScreen(page, `/user_detail?id=${user.id}`, '用户详情');
      await page.getByText('通行密钥', { exact: true }).first().waitFor();
      await shot(page, 'user-detail-passkeys');
      await page.getByRole('button', { name: '通行密钥' }).click();
      await page.locator('.adm-nav-bar-title', { hasText: '通行密钥' }).waitFor();
      await page.locator('.adm-list-item', { hasText: '丢了的手机' }).waitFor();
      await shot(page, 'user-passkeys');
      await rowAction(page, '丢了的手机', '移除');
      await answerDialog(page, '确定移除「丢了的手机」吗？用它登录的设备会立即退出登录');
      await toast(page, '通行密钥已移除').waitFor();
      await page.getByText('该用户没有通行密钥').waitFor();
      await shot(page, 'user-passkeys-removed');

      // The phone signed in with it is on the sign-in page by itself, saying why; the user's password session goes on.
      await phone.page.waitForURL((u) => u.pathname === '/login');
      expect((await api.call('userGetLogin')).code).toBe(0);
    } finally {
      await phone.context.close();
      await admin.context.close();
    }
  });
});
