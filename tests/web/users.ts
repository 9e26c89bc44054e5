import type { LoginUser } from '../../src/web/state/session';

// The signed-in user the screen tests start from: a user or an admin, with only what a test cares about changed.

export const aUser = (fields: Partial<LoginUser> = {}): LoginUser => ({
  id: 1,
  userAccount: 'me_0001',
  userName: '我',
  userRole: 'user',
  email: null,
  invitationCode: 'BBBBBBBB',
  coin: 0,
  createdAt: 0,
  twoFactor: false,
  enrolTwoFactor: false,
  policyAccepted: 1,
  ...fields,
});

export const anAdmin = (fields: Partial<LoginUser> = {}): LoginUser =>
  aUser({ userAccount: 'admin', userName: '管理员', userRole: 'admin', invitationCode: 'A', ...fields });
