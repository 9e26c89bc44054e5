import { createRoot, type Root } from 'react-dom/client';
import { Dialog, Toast, unstableSetRender } from 'antd-mobile';
import { createElement } from 'react';
import { ActionMenu, type MenuAction } from './ActionMenu';

// antd-mobile renders Toast and Dialog imperatively with React 18's API; on React 19 it needs this shim before the
// first one. It lives here, with the only modules that need it, so pages that never show one never download it.
// eslint-disable-next-line @typescript-eslint/no-deprecated -- antd-mobile's documented React 19 adapter; no stable API yet
unstableSetRender((node, container) => {
  const host = container as (Element | DocumentFragment) & { __root?: Root };
  host.__root ??= createRoot(host);
  host.__root.render(node);
  return async () => {
    await Promise.resolve();
    host.__root?.unmount();
    delete host.__root;
  };
});

export { Dialog, Toast };

/** Shows the sheet of actions until one is chosen or it is dismissed; its own root, removed once it has slid away. */
export function showActionMenu(actions: readonly MenuAction[], cancelText: string): void {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const root = createRoot(host);
  const onClosed = () => {
    root.unmount();
    host.remove();
  };
  root.render(createElement(ActionMenu, { actions, cancelText, onClosed }));
}
