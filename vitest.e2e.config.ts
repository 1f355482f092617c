import { defineConfig } from "vitest/config";

// `npm run test:e2e`: the end-to-end suite against a real kube-apiserver (docs/e2e.md). Kept apart from
// vitest.config.ts (which excludes test/e2e) because it builds and starts a cluster.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    testTimeout: 120_000,
    // The first run builds the harness (minutes on two cores) inside beforeAll.
    hookTimeout: 45 * 60_000,
    pool: "forks",
    fileParallelism: false,
  },
});
