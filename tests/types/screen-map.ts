// Compiled by `tsc --noEmit` (tsconfig includes tests), never run: each `@ts-expect-error` below must meet an error,
// so the screen map keeps refusing a field, argument or load its operation does not have.
import { detailScreen, formScreen, listScreen } from '../../src/web/config/types';

const base = { path: '/x', title: 'x', access: ['admin'] } as const;

detailScreen({
  ...base,
  kind: 'detail',
  operation: 'userGet',
  args: (q) => ({ query: { id: Number(q.get('id')) } }),
  fields: [
    { key: 'userAccount', label: '账号' },
    // @ts-expect-error userGet answers no field `userAcount`
    { key: 'userAcount', label: '账号' },
  ],
});

detailScreen({
  ...base,
  kind: 'detail',
  operation: 'userGet',
  // @ts-expect-error userGet takes `id`, not `userId`
  args: (q) => ({ query: { userId: Number(q.get('id')) } }),
  fields: [],
});

formScreen({
  ...base,
  kind: 'form',
  submit: 'userUpdate',
  fields: ['userName'],
  load: {
    operation: 'userGet',
    args: (q) => ({ query: { id: Number(q.get('id')) } }),
    // @ts-expect-error the load's answer (userGet) has no `nickName`
    pick: (user) => ({ userName: user.nickName }),
  },
});

formScreen({
  ...base,
  kind: 'form',
  submit: 'userUpdate',
  // @ts-expect-error userUpdate's body has no field `nickName`
  fields: ['nickName'],
});

listScreen({
  ...base,
  kind: 'list',
  operation: 'userListPage',
  item: { title: (u) => u.userAccount },
  rowActions: [
    // @ts-expect-error userBan takes `id` in its query
    { label: '封禁', call: { operation: 'userBan', args: (u) => ({ query: { userId: u.id } }) } },
  ],
});
