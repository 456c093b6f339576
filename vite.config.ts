import { defineConfig } from 'vitest/config';

/**
 * Vite and Vitest configuration. Server tests run in Node; each test file
 * builds its own fixtures (temporary data folders, ephemeral ports).
 */
export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'protocol/**/*.test.ts', 'bench/**/*.test.ts', 'e2e/**/*.test.ts', 'eval/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
