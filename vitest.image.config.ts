import { defineConfig } from "vitest/config";

// `npm run test:image`: the image built with podman (scripts/image.mjs), run as manifests/base/webhook/500-deployment.yaml
// runs it, as the webhook of the e2e suite's kube-apiserver (docs/e2e.md, "The image"). Opt-in: it needs podman and
// builds the image and the e2e harness the first time.
export default defineConfig({
  test: {
    include: ["test/image/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 45 * 60_000,
    pool: "forks",
    fileParallelism: false,
  },
});
