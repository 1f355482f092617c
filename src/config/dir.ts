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
export async function loadConfigDir(dir: string): Promise<ConfigSnapshot> {
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
  return snapshotFrom(configs, `dir:${dir}`);
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

/** A ConfigMap manifest or a flat map; every value must be a string, as in a ConfigMap's `data`. */
export function parseConfigFile(file: string, text: string): Record<string, string> {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new Error(`config file "${file}" must be YAML or JSON: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return Object.create(null) as Record<string, string>;
  if (typeof doc !== "object" || Array.isArray(doc)) throw new Error(`config file "${file}" must hold a ConfigMap or a map of strings`);
  const obj = doc as Record<string, unknown>;
  const source = obj.kind === "ConfigMap" ? (obj.data ?? {}) : obj;
  if (typeof source !== "object" || source === null || Array.isArray(source)) throw new Error(`config file "${file}": data must be a map of strings`);
  const data: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    if (typeof v !== "string") throw new Error(`config file "${file}": value of "${k}" must be a string`);
    data[k] = v;
  }
  return data;
}
