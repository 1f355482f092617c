import { defineConfig } from "vitest/config";

// `npm run test:differential`: Duckbill against Knative's own webhook (reference/) on generated cases, per release
// (test/differential/differential.test.ts). Kept apart from vitest.config.ts (which excludes test/differential)
// because it builds the references and runs for minutes.
export default defineConfig({
  test: {
    include: ["test/differential/**/*.test.ts"],
    testTimeout: 6 * 60 * 60_000,
    hookTimeout: 60 * 60_000,
    pool: "forks",
    fileParallelism: false,
  },
});
