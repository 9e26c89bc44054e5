import { describe, expect, it } from 'vitest';
import { firstScreenModules } from '../../src/web/app/first-screen-modules';
import { customScreens } from '../../src/web/app/custom-screens';
import { routeTable } from '../../src/web/generated/route-table.gen';

// The server names each route's first-screen chunks in its HTML (vite/route-preloads.ts) from
// firstScreenModules: a list that missed what routes.tsx really loads would preload the wrong files and leave the
// right ones to the waterfall it is there to remove.

// From the repository's root, as Vite resolves a path starting with /.
const load = (module: string) => import(/* @vite-ignore */ `/${module}`) as Promise<object>;

describe('the first screen modules the HTML names', () => {
  it('are the modules custom-screens.ts loads for each hand screen (the very same module, not a namesake)', async () => {
    for (const entry of routeTable) {
      if (entry.kind !== 'custom') continue;
      const [screen] = firstScreenModules(entry);
      expect(await load(screen!), entry.path).toBe(await customScreens[entry.screen]());
    }
  });

  it('name, for the generic screens, the renderer routes.tsx loads, with the map; and the frame unless bare', async () => {
    const renderers: Record<string, string> = {
      list: 'ListRenderer',
      form: 'FormRenderer',
      detail: 'DetailRenderer',
      composed: 'ComposedRenderer',
      pending: 'Pending',
    };
    for (const entry of routeTable) {
      const modules = firstScreenModules(entry);
      const framed = entry.chrome !== 'bare';
      expect(modules.includes('src/web/shell/Frame.tsx'), entry.path).toBe(framed);
      expect(modules.includes('src/web/app/screens.ts'), entry.path).toBe(framed || entry.kind !== 'custom');
      if (entry.kind === 'custom') continue;
      expect(await load(modules[0]!), entry.path).toHaveProperty(renderers[entry.kind]!);
    }
    // Both sides of the map: /login is bare and custom, / framed and custom.
    expect(firstScreenModules(routeTable.find((e) => e.path === '/login')!)).toEqual(['src/web/screens/Login.tsx']);
  });
});
