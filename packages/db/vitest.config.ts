import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Brings up a throwaway PostgreSQL for the store tests when CI=true (see test/postgres-setup.ts).
    globalSetup: ["./test/postgres-setup.ts"],
    hookTimeout: 60_000,
    testTimeout: 30_000,
  },
});
