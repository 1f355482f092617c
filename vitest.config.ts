import { defineConfig } from "vitest/config";

/**
 * Files whose assertions depend on the wall clock (server timeouts, leases, drains, watch watchdogs, a soak at a
 * fixed rate): the `timing` project, run by `npm run test:timing`, not by `npm test` (README "Tests" says why).
 * They run one file at a time, so the CPU of one file does not count against another's time bounds;
 * test/support/timing.ts covers the pauses a throttled machine takes on its own.
 */
const TIMING = [
  "test/cli/workers-restarts.test.ts",
  "src/server/logging.test.ts",
  "test/config/cluster-store.test.ts",
  "test/kube/cert-controller.test.ts",
  "test/kube/leader-election.test.ts",
  "test/kube/webhook-config.test.ts",
  "test/robustness/config-files-timing.test.ts",
  "test/robustness/faults-drain.test.ts",
  "test/robustness/hostile-timing.test.ts",
  "test/robustness/soak.test.ts",
  "test/robustness/transport.test.ts",
  "test/server/drain.test.ts",
];

export default defineConfig({
  test: {
    exclude: ["node_modules", "dist", "test/e2e/**", "test/image/**", "test/reference/**", "test/differential/**", "test/control-plane/**"],
    // Hang guards, not speed checks: a throttled runner took 32 s for a test that takes 3 s on a quiet machine.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: "forks",
    globalSetup: ["test/support/shared-note.ts"],
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["src/**/*.test.ts", "test/**/*.test.ts"], exclude: ["node_modules", "dist", "test/e2e/**", "test/image/**", "test/reference/**", "test/differential/**", "test/control-plane/**", ...TIMING], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: "timing", include: TIMING, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
