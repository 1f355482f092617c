/** Types of scripts/types-model.mjs, for src/apis/go-types-model.test.ts. */
export declare const REPO: string;
export declare const RAW_DIR: string;
export declare const GENERATED_TS: string;
/** Newest first. */
export declare const RELEASE_NAMES: readonly ["1.24", "1.23", "1.17"];
/** reference/typegen/knative-<release>.json */
export declare function rawPath(release: string): string;
/** src/apis/go-types.generated.ts for the raw reflected models' texts, keyed by release. */
export declare function renderModel(raw: Readonly<Record<string, string>>): string;
