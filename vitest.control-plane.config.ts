import { defineConfig } from "vitest/config";

// `npm run test:control-plane`: Knative's controller on two harness API servers, one with Duckbill as its webhook,
// one with Knative's own (docs/e2e.md, "Knative's control plane"). Opt-in like the e2e suite: it builds Knative's
// controller and starts two clusters. KNATIVE_VERSION chooses the release.
export default defineConfig({
  test: {
    include: ["test/control-plane/**/*.test.ts"],
    // Each scenario settles both clusters after every step; the first run builds the harness and Knative's
    // controller inside beforeAll.
    testTimeout: 15 * 60_000,
    hookTimeout: 60 * 60_000,
    pool: "forks",
    fileParallelism: false,
    reporters: ["default", "./test/control-plane/control-plane-reporter.ts"],
  },
});
