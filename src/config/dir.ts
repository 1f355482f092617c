import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isMap, isScalar, LineCounter, parseDocument, type Node, type YAMLMap } from "yaml";
import type { KnativeProfile } from "./profile.js";
import { snapshotFrom, type ConfigSnapshot } from "./snapshot.js";
import { MAX_CONFIG_BYTES, readRegularFile } from "./sources/bounded-read.js";

/**
 * Reads a standalone configuration directory once (`check --config-dir`; `serve` follows one with
 * sources/directory.ts). For each ConfigMap name, one of:
 * - `<name>.yaml` / `<name>.yml` / `<name>.json`: a ConfigMap manifest (its `data` is used) or a plain key/value map;
 * - `<name>/`: the layout kubelet produces when a ConfigMap is mounted as a volume (one file per key,
 *   dot-files such as `..data` skipped).
 * A ConfigMap without a file keeps Knative's defaults. Files are read as bounded-read.ts reads them: regular files
 * of at most a ConfigMap's 1 MiB.
 */
export async function loadConfigDir(dir: string, profile?: KnativeProfile): Promise<ConfigSnapshot> {
  const st = await stat(dir).catch(() => undefined);
  if (st === undefined || !st.isDirectory()) throw new Error(`config dir "${dir}" must be an existing directory`);
  const configs: Record<string, Record<string, string>> = Object.create(null) as Record<string, Record<string, string>>;
  for (const entry of await readdir(dir)) {
    if (entry.startsWith(".")) continue;
    const full = join(dir, entry);
    if ((await stat(full)).isDirectory()) {
      configs[entry] = await readMountedConfigMap(full);
      continue;
    }
    const m = /^(.+)\.(ya?ml|json)$/.exec(entry);
    if (m === null || m[1] === undefined) continue;
    const content = readConfigFile(full, await readText(full));
    if (content.kind === "invalid") throw new Error(content.error);
    configs[m[1]] = content.kind === "data" ? content.data : (Object.create(null) as Record<string, string>);
  }
  return snapshotFrom(configs, `dir:${dir}`, profile);
}

async function readText(file: string, maxBytes = MAX_CONFIG_BYTES): Promise<string> {
  const read = await readRegularFile(file, maxBytes);
  if (!read.ok) throw new Error(`cannot read config file "${file}": ${read.reason}`);
  return read.bytes.toString("utf8");
}

async function readMountedConfigMap(dir: string): Promise<Record<string, string>> {
  const data: Record<string, string> = Object.create(null) as Record<string, string>;
  let left = MAX_CONFIG_BYTES;
  for (const key of await readdir(dir)) {
    if (key.startsWith(".")) continue;
    const full = join(dir, key);
    if (!(await stat(full)).isFile()) continue;
    data[key] = await readText(full, left);
    left -= Buffer.byteLength(data[key]);
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

/**
 * The YAML library's duplicate-key check compares each key with every key before it: a 16,000-key file took 5 s.
 * Parsed without it, each mapping's scalar keys are then checked against a set (the same equality: the library
 * compares scalar keys by value and other keys by identity), in linear time, without recursion.
 */
function firstDuplicateKey(root: unknown): Node | undefined {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const { key, value } of (node as YAMLMap<unknown, unknown>).items) {
        if (isScalar(key)) {
          if (seen.has(key.value)) return key;
          seen.add(key.value);
        }
        pending.push(key, value);
      }
    } else if (typeof node === "object" && node !== null && Array.isArray((node as { items?: unknown }).items)) {
      pending.push(...(node as { items: unknown[] }).items);
    }
  }
  return undefined;
}

function parseYaml(text: string): unknown {
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  const [error] = doc.errors;
  if (error !== undefined) throw error;
  const duplicate = firstDuplicateKey(doc.contents);
  if (duplicate !== undefined) {
    const { line, col } = lines.linePos(duplicate.range?.[0] ?? 0);
    throw new Error(`Map keys must be unique at line ${line}, column ${col}`);
  }
  return doc.toJS();
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

