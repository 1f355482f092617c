import { defineConfig } from "vitest/config";

// `npm run test:reference`: Knative's own webhook, built per release from reference/ (reference/README.md), answers
// every public vector. Kept apart from vitest.config.ts (which excludes test/reference) because the first run
// builds three Go programs.
export default defineConfig({
  test: {
    include: ["test/reference/**/*.test.ts"],
    testTimeout: 300_000,
    // The first run builds the references (minutes each on two cores) inside beforeAll.
    hookTimeout: 60 * 60_000,
    pool: "forks",
    fileParallelism: false,
  },
});
