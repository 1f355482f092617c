import type { KnativeProfile } from "./profile.js";
import { lstat, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { snapshotFrom, type ConfigSnapshot } from "./snapshot.js";

/**
 * Reads a standalone configuration directory (`--config-dir`). For each ConfigMap name, one of:
 * - `<name>.yaml` / `<name>.yml` / `<name>.json`: a ConfigMap manifest (its `data` is used) or a plain key/value map;
 * - `<name>/`: the layout kubelet produces when a ConfigMap is mounted as a volume (one file per key,
 *   dot-files such as `..data` skipped).
 * A ConfigMap without a file keeps Knative's defaults. Issue [4] adds live reloading.
 */
export async function loadConfigDir(dir: string, profile?: KnativeProfile): Promise<ConfigSnapshot> {
  const st = await stat(dir).catch(() => undefined);
  if (st === undefined || !st.isDirectory()) throw new Error(`config dir "${dir}" must be an existing directory`);
  const configs: Record<string, Record<string, string>> = Object.create(null) as Record<string, Record<string, string>>;
  for (const entry of await readdir(dir)) {
    if (entry.startsWith(".")) continue;
    const full = join(dir, entry);
    const info = await stat(full);
    if (info.isDirectory()) {
      configs[entry] = await readMountedConfigMap(full);
      continue;
    }
    const m = /^(.+)\.(ya?ml|json)$/.exec(entry);
    if (m === null || m[1] === undefined) continue;
    configs[m[1]] = parseConfigFile(full, await readFile(full, "utf8"));
  }
  return snapshotFrom(configs, `dir:${dir}`, profile);
}

async function readMountedConfigMap(dir: string): Promise<Record<string, string>> {
  const data: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const key of await readdir(dir)) {
    if (key.startsWith(".")) continue;
    const full = join(dir, key);
    const info = await lstat(full).then((l) => (l.isSymbolicLink() ? stat(full) : l));
    if (info.isFile()) data[key] = await readFile(full, "utf8");
  }
  return data;
}

/**
 * What one configuration file holds: ConfigMap data, nothing at all (an empty or comment-only file: most likely one
 * being written, so not taken for an empty ConfigMap), or something that is neither a ConfigMap manifest nor a map
 * of strings (the reason says why). `data: {}`, `{}` and a manifest of kind ConfigMap without data are real, empty
 * ConfigMaps.
 */
export type ConfigFileContent =
  | { readonly kind: "data"; readonly data: Record<string, string> }
  | { readonly kind: "empty" }
  | { readonly kind: "invalid"; readonly error: string };

const EMPTY_FILE: ConfigFileContent = Object.freeze({ kind: "empty" });

function invalidFile(error: string): ConfigFileContent {
  return { kind: "invalid", error };
}

export function readConfigFile(file: string, text: string): ConfigFileContent {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    return invalidFile(`config file "${file}" must be YAML or JSON: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return EMPTY_FILE;
  if (typeof doc !== "object" || Array.isArray(doc)) return invalidFile(`config file "${file}" must hold a ConfigMap or a map of strings`);
  const obj = doc as Record<string, unknown>;
  const manifest = Object.prototype.hasOwnProperty.call(obj, "kind") || Object.prototype.hasOwnProperty.call(obj, "apiVersion");
  // A manifest of another kind, or one cut short before its kind (a file being written), is not a ConfigMap.
  if (manifest && obj.kind !== "ConfigMap") {
    return invalidFile(`config file "${file}" must hold a ConfigMap or a map of strings, not a manifest of kind ${JSON.stringify(obj.kind ?? "")}`);
  }
  const source = manifest ? (obj.data ?? {}) : obj;
  if (typeof source !== "object" || source === null || Array.isArray(source)) return invalidFile(`config file "${file}": data must be a map of strings`);
  const data: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    if (typeof v !== "string") return invalidFile(`config file "${file}": value of "${k}" must be a string`);
    data[k] = v;
  }
  return { kind: "data", data };
}

/** readConfigFile for the one-shot loader: an empty file is no data (Knative's defaults), an invalid one throws. */
export function parseConfigFile(file: string, text: string): Record<string, string> {
  const r = readConfigFile(file, text);
  if (r.kind === "invalid") throw new Error(r.error);
  return r.kind === "data" ? r.data : (Object.create(null) as Record<string, string>);
}
