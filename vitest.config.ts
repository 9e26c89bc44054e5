import { defineConfig } from 'vitest/config';

// API tests run twice, once per database: the same files, the DB_KIND environment telling the helper which.
const apiProject = (kind: 'sqlite' | 'postgres') => ({
  test: {
    name: `api-${kind}`,
    include: ['tests/api/**/*.test.ts'],
    environment: 'node',
    env: { DB_KIND: kind },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    projects: [
      apiProject('sqlite'),
      apiProject('postgres'),
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
    ],
  },
});
