/**
 * vitest's globalSetup: says once per run, not once per test file, that the vectors' shared checkout beside the
 * repository is absent (a clean clone in CI), so the cross-checks against compare.py and the byte-for-byte
 * comparison of the vector copy are not made and the vectors in test/conformance are used as they are.
 */
import { sharedAvailable } from "../conformance/paths.js";

export default function setup(): void {
  if (!sharedAvailable()) {
    process.stdout.write("note: ../shared/conformance is absent: the vectors in test/conformance are used as they are, without the compare.py cross-checks\n");
  }
}
