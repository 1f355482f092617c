/**
 * `duckbill version`: the package version, the git commit the bundle was built from (scripts/bundle.mjs defines
 * __DUCKBILL_COMMIT__; a build outside a git checkout, and tsc's unbundled output, say "unknown"), the Node.js
 * version it runs on, and the Knative releases it answers as (--knative-version), the default first.
 */
import { readFileSync } from "node:fs";
import { DEFAULT_KNATIVE_VERSION, KNATIVE_VERSIONS, PROFILES } from "../config/profile.js";

declare const __DUCKBILL_COMMIT__: string | undefined;

export interface VersionInfo {
  readonly version: string;
  readonly commit: string;
  readonly node: string;
  readonly knative: ReadonlyArray<{ readonly release: string; readonly serving: string; readonly default: boolean }>;
}

/** The commit the bundle was built from, or "unknown". */
export function buildCommit(): string {
  return typeof __DUCKBILL_COMMIT__ === "string" && __DUCKBILL_COMMIT__ !== "" ? __DUCKBILL_COMMIT__ : "unknown";
}

/** package.json's version: dist/bundle/ and dist/cli/ are both two levels below it. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

export function versionInfo(commit = buildCommit(), node = process.version): VersionInfo {
  return {
    version: packageVersion(),
    commit,
    node,
    knative: KNATIVE_VERSIONS.map((v) => ({ release: v, serving: PROFILES[v].servingModule, default: v === DEFAULT_KNATIVE_VERSION })),
  };
}

export function formatVersion(info: VersionInfo): string {
  const lines = [`duckbill ${info.version}`, `commit: ${info.commit}`, `node: ${info.node}`];
  for (const k of info.knative) lines.push(`knative ${k.release}${k.default ? " (default without a cluster)" : ""}: ${k.serving}`);
  return lines.join("\n") + "\n";
}
