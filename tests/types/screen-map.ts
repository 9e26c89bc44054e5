// Compiled by `tsc --noEmit` (tsconfig includes tests), never run: each `@ts-expect-error` below must meet an error,
// so the screen map keeps refusing a field, argument or load its operation does not have.
import { composedScreen, detailScreen, formScreen, listScreen } from '../../src/web/config/types';

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

composedScreen({
  ...base,
  kind: 'composed',
  load: { operation: 'platformOverview', args: () => ({ query: { kind: 'gxy' } }) },
  body: [
    {
      type: 'detail',
      fields: [
        { label: '价格', value: (o) => String(o.platform?.price) },
        // @ts-expect-error platformOverview answers no field `platfrom`
        { label: '价格', value: (o) => String(o.platfrom?.price) },
      ],
      actions: [
        // @ts-expect-error serviceStart takes `id` in its body, not `serviceId`
        { label: '启动', call: { operation: 'serviceStart', args: (o) => ({ body: { serviceId: o.service?.id } }) } },
      ],
    },
    {
      type: 'list',
      operation: 'runMy',
      // @ts-expect-error runMy's query has no `kind` filter
      filter: (o) => ({ kind: o.kind.code }),
      item: { title: (r) => r.platformName },
    },
    {
      type: 'list',
      operation: 'runMy',
      // @ts-expect-error a run has no `outcome`
      item: { title: (r) => r.outcome },
    },
  ],
});
