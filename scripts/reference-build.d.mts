/** Types of scripts/reference-build.mjs for the tests that build and run the Knative references. */
export type KnativeRelease = "1.17" | "1.23" | "1.24";
export declare const REPO: string;
/** Each release: the knative.dev/serving version and the Go toolchain that builds it ("local": the machine's). */
export declare const RELEASES: Record<KnativeRelease, { serving: string; go: string }>;
/** ${DUCKBILL_REFERENCE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/duckbill-reference} */
export declare function cacheRoot(): string;
/** What is built per release: Knative's webhook (reference/) or Knative's controller (knative.dev/serving/cmd/controller). */
export type BuildTarget = "webhook" | "controller";
/** Where a release's binary is, built or not (the webhook unless `target` says otherwise). */
export declare function binaryPath(release: KnativeRelease, target?: BuildTarget): string;
/** Builds the release's target (default the webhook) unless it is up to date (progress on stderr); resolves to the binary's path. */
export declare function ensureBuilt(release: KnativeRelease, options?: { quiet?: boolean; target?: BuildTarget }): Promise<string>;
