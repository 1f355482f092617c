/**
 * The directory source (`--config-dir`): one entry per ConfigMap, reloaded on change (../dir.ts reads a directory
 * once, for `check`, and holds the file parser). An entry is one of
 * - `<name>.yaml` / `<name>.yml` / `<name>.json`: a ConfigMap manifest or a plain key/value map;
 * - `<name>/`: kubelet's mounted-volume layout, one file per key, published by swapping the `..data` symlink.
 * The directory itself may also be a kubelet volume (its entries are then symlinks through its own `..data`).
 * Changes are picked up by fs.watch (the directory, each mounted subdirectory and their `..data` targets) and by a
 * low-frequency poll, as fs.watch misses events on some filesystems (NFS, some overlay and FUSE mounts).
 * An entry caught while it is being written never replaces a good configuration: an empty file, a mounted directory
 * without key files or with `..data` mid-swap changes nothing, and a file that does not parse is rejected by the
 * store like any invalid ConfigMap; either way a warning names the file and the reason, once per content. A real
 * empty ConfigMap is written out (`data: {}`, a ConfigMap manifest without data, or `{}`).
 * What an entry can do to the process is bounded: files are read as bounded-read.ts reads them (regular files only,
 * opened non-blocking, at most a ConfigMap's 1 MiB), parsed on a worker thread (file-parser.ts) and only when their
 * bytes changed since the last read, and a read of the whole directory that takes longer than READ_TIMEOUT_MS is
 * given up (warned about and counted) so that later reloads do not queue behind it.
 */
import { createHash } from "node:crypto";
import { watch, type FSWatcher } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "pino";
import type { ConfigFileContent } from "../dir.js";
import { MAX_CONFIG_BYTES, readRegularFile } from "./bounded-read.js";
import { configFileParser, inlineParser, type ConfigFileParser } from "./file-parser.js";
import type { ConfigMapSink, ObservedConfigMap } from "./sink.js";

export interface DirectorySourceOptions {
  readonly dir: string;
  readonly names: readonly string[];
  readonly sink: ConfigMapSink;
  readonly logger: Logger;
  /** Safety-net re-read period. */
  readonly pollMs: number;
  /** Wait this long after a file event for the rest of a burst (an editor's save, kubelet's swap) before reading. */
  readonly debounceMs?: number;
  /** fs.watch on (default true); off leaves only the poll. */
  readonly fsWatch?: boolean;
  /** A read of the directory that takes longer is given up (default READ_TIMEOUT_MS). */
  readonly readTimeoutMs?: number;
  /** Parses configuration files (default: configFileParser(), on a worker thread). */
  readonly parser?: ConfigFileParser;
  /** Counts reads of the directory that failed or were given up. */
  readonly onReadFailure?: (reason: "error" | "timeout") => void;
}

/** How long one read of the whole directory may take (a hung network filesystem) before later reads go ahead. */
export const READ_TIMEOUT_MS = 10_000;

const FILE_SUFFIXES = [".yaml", ".yml", ".json"] as const;

/** kubelet publishes a mounted ConfigMap by pointing `..data` at a fresh timestamped directory. */
const KUBELET_DATA_LINK = "..data";

/** Attempts at a read that hit a file vanishing mid-swap before waiting for the next event or poll. */
const TRANSIENT_RETRIES = 3;

function isNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "ENOENT";
}

function digest(data: Readonly<Record<string, string>>): string {
  const h = createHash("sha256");
  for (const key of Object.keys(data).sort()) h.update(key).update("\0").update(data[key] ?? "").update("\0");
  return `sha256:${h.digest("hex").slice(0, 16)}`;
}

function invalid(error: string): ObservedConfigMap {
  return { version: `error:${error}`, error };
}

const EMPTY_DATA: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);
const EMPTY_OBSERVED: ObservedConfigMap = Object.freeze({ version: digest(EMPTY_DATA), data: EMPTY_DATA });

/** Why an entry cannot be used as its ConfigMap right now: what to log, once per distinct `key`. */
export interface UnusableEntry {
  readonly file: string;
  readonly reason: string;
  /** Identifies the content (reason and bytes): the same content is warned about once. */
  readonly key: string;
}

/**
 * One ConfigMap's entry as read. `observed` is reported to the store (which keeps the last good value over an
 * invalid one). Without `observed`, the entry holds nothing usable (an empty file, a mounted directory without
 * key files or in the middle of a swap): nothing is reported when the source reported this ConfigMap before, so
 * the value in effect stays; otherwise `firstRead` is reported, what such an entry has always meant at startup.
 */
export interface EntryRead {
  readonly observed?: ObservedConfigMap;
  readonly unusable?: UnusableEntry;
  readonly firstRead?: ObservedConfigMap;
}

function unusable(file: string, reason: string, content: string | Buffer): UnusableEntry {
  return { file, reason, key: `${reason}\0${createHash("sha256").update(content).digest("hex")}` };
}

/** Where a directory's current contents live: through `..data` when it is a kubelet volume (an atomic view). */
async function contentRoot(dir: string): Promise<string> {
  try {
    return await realpath(join(dir, KUBELET_DATA_LINK));
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  // `..data` exists but points nowhere: kubelet is swapping it. Reading the directory itself would see a partial
  // view, so report the ENOENT (the caller reads again shortly).
  const link = await lstat(join(dir, KUBELET_DATA_LINK)).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
  if (link !== undefined) throw Object.assign(new Error(`${join(dir, KUBELET_DATA_LINK)} points to nothing (kubelet is swapping it)`), { code: "ENOENT" });
  return dir;
}

async function readMounted(dir: string): Promise<EntryRead> {
  let root: string;
  try {
    root = await contentRoot(dir);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return { unusable: unusable(dir, "the mounted ConfigMap is being swapped (`..data` points to nothing)", "") };
  }
  const data: Record<string, string> = Object.create(null) as Record<string, string>;
  let files = 0;
  let left = MAX_CONFIG_BYTES;
  for (const key of await readdir(root)) {
    if (key.startsWith(".")) continue;
    const full = join(root, key);
    if (!(await stat(full)).isFile()) continue;
    const read = await readRegularFile(full, left);
    if (!read.ok) {
      const reason = `cannot read ${join(dir, key)}: ${read.reason}`;
      return { observed: invalid(reason), unusable: unusable(dir, reason, "") };
    }
    data[key] = read.bytes.toString("utf8");
    left -= read.bytes.length;
    files++;
  }
  // kubelet writes one file per key: none at all is a volume not (or no longer) populated, not an empty ConfigMap.
  if (files === 0) return { unusable: unusable(dir, "the mounted ConfigMap directory has no key files", ""), firstRead: EMPTY_OBSERVED };
  return { observed: { version: digest(data), data } };
}

function fileEntry(file: string, bytes: Buffer, content: ConfigFileContent): EntryRead {
  switch (content.kind) {
    case "data":
      return { observed: { version: digest(content.data), data: content.data } };
    case "empty":
      return { unusable: unusable(file, "the file is empty", bytes), firstRead: EMPTY_OBSERVED };
    case "invalid":
      return { observed: invalid(content.error), unusable: unusable(file, content.error, bytes) };
  }
}

/**
 * Parsed files by path: a file is parsed again only when its bytes changed (the poll reads every file every period,
 * and a 1 MiB file costs most of a second of parsing).
 */
export class ParsedFiles {
  private readonly byPath = new Map<string, { readonly bytes: Buffer; readonly entry: EntryRead }>();

  constructor(private readonly parser: ConfigFileParser = inlineParser) {}

  /** What the file holds: parsed, digested and judged once per content. */
  async read(file: string, bytes: Buffer): Promise<EntryRead> {
    const known = this.byPath.get(file);
    if (known !== undefined && known.bytes.equals(bytes)) return known.entry;
    const entry = fileEntry(file, bytes, await this.parser.parse(file, bytes.toString("utf8")));
    this.byPath.set(file, { bytes, entry });
    return entry;
  }

  /** Forgets the files not in `paths`. */
  keepOnly(paths: ReadonlySet<string>): void {
    for (const p of this.byPath.keys()) if (!paths.has(p)) this.byPath.delete(p);
  }

  close(): Promise<void> {
    return this.parser.close();
  }
}

/**
 * Reads the watched ConfigMaps from `dir`: name → what its entry holds, for the names present. A file that does
 * not parse, cannot be read (not a regular file, over 1 MiB), or a ConfigMap given twice, is reported as invalid
 * (the store then keeps the last good value); an empty file or an unpopulated mounted directory is unusable (see
 * EntryRead). Throws ENOENT when a file vanished mid-read or the directory's own `..data` is being swapped (the
 * caller retries).
 */
export async function readConfigDirectory(dir: string, names: readonly string[], files: ParsedFiles = new ParsedFiles()): Promise<Map<string, EntryRead>> {
  const root = await contentRoot(dir);
  const entries = new Set(await readdir(root));
  const out = new Map<string, EntryRead>();
  const seen = new Set<string>();
  for (const name of names) {
    const found = [name, ...FILE_SUFFIXES.map((s) => name + s)].filter((e) => entries.has(e));
    const [entry] = found;
    if (entry === undefined) continue;
    if (found.length > 1) {
      out.set(name, { observed: invalid(`${name} is given more than once in ${dir} (${found.join(", ")}); keep one`) });
      continue;
    }
    const full = join(root, entry);
    const info = await stat(full);
    if (entry === name) {
      if (info.isDirectory()) out.set(name, await readMounted(full)); // a bare file named like the ConfigMap is not one of the layouts
      continue;
    }
    const file = join(dir, entry);
    const read = await readRegularFile(full);
    if (!read.ok) {
      const reason = `cannot read ${file}: ${read.reason}`;
      out.set(name, { observed: invalid(reason), unusable: unusable(file, reason, "") });
      continue;
    }
    seen.add(file);
    out.set(name, await files.read(file, read.bytes));
  }
  files.keepOnly(seen);
  return out;
}

export class DirectoryConfigMapSource {
  private readonly watchers = new Map<string, FSWatcher>();
  private pollTimer: NodeJS.Timeout | undefined;
  private debounceTimer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private transientFailures = 0;
  private lastProblem = "";
  private closed = false;
  /** ConfigMaps reported to the sink at least once (a deletion does not count): an unusable entry then keeps it. */
  private readonly reported = new Set<string>();
  /** ConfigMap → the unusable content last warned about, so a poll does not repeat the warning. */
  private readonly warned = new Map<string, string>();
  private readonly files: ParsedFiles;
  /** Counts reads started: a read given up after READ_TIMEOUT_MS reports nothing when it ends after all. */
  private generation = 0;

  constructor(private readonly opts: DirectorySourceOptions) {
    this.files = new ParsedFiles(opts.parser ?? configFileParser());
  }

  /** Reads the directory once (throwing if that fails), then watches and polls it. */
  async start(): Promise<void> {
    const view = await readConfigDirectory(this.opts.dir, this.opts.names, this.files);
    this.report(view);
    await this.rearm();
    this.pollTimer = setInterval(() => this.reload(), this.opts.pollMs);
    this.pollTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    await this.reading;
    await this.files.close();
  }

  private report(view: ReadonlyMap<string, EntryRead>): void {
    const { sink, names } = this.opts;
    for (const name of names) {
      const read = view.get(name);
      if (read === undefined) {
        sink.observeMissing(name);
        continue;
      }
      if (read.unusable === undefined) this.warned.delete(name);
      else this.warnOnce(name, read.unusable);
      const observed = read.observed ?? (this.reported.has(name) ? undefined : read.firstRead);
      if (observed === undefined) {
        if (!this.reported.has(name)) sink.observeMissing(name);
        continue;
      }
      this.reported.add(name);
      sink.observe(name, observed);
    }
    sink.synced();
  }

  private warnOnce(name: string, problem: UnusableEntry): void {
    if (this.warned.get(name) === problem.key) return;
    this.warned.set(name, problem.key);
    const kept = this.reported.has(name) ? "the configuration in effect for it stays" : "nothing was read for it before, so Knative's defaults apply";
    this.opts.logger.warn({ configmap: name, file: problem.file, reason: problem.reason }, `cannot use ${problem.file} as ${name}: ${problem.reason}; ${kept}`);
  }

  /** A file event: read once the burst is over. */
  private changed(): void {
    if (this.closed) return;
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      this.reload();
    }, this.opts.debounceMs ?? 50);
    this.debounceTimer.unref();
  }

  /** Reads and reports; one read at a time, and a request during a read runs one more afterwards. */
  private reload(): void {
    if (this.closed) return;
    if (this.reading !== undefined) {
      this.readAgain = true;
      return;
    }
    const generation = ++this.generation;
    const timeoutMs = this.opts.readTimeoutMs ?? READ_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (generation === this.generation && !this.closed) {
          this.generation++; // what the stuck read finds, if it ever ends, is not reported
          this.opts.onReadFailure?.("timeout");
          this.opts.logger.warn({ dir: this.opts.dir, timeoutMs }, `reading the configuration directory took longer than ${timeoutMs} ms and was given up; the values in effect stay, and the next read starts anew`);
        }
        resolve();
      }, timeoutMs);
      timer.unref();
    });
    this.reading = Promise.race([this.readOnce(generation), givenUp]).finally(() => {
      clearTimeout(timer);
      this.reading = undefined;
      if (this.readAgain) {
        this.readAgain = false;
        this.reload();
      }
    });
  }

  private async readOnce(generation: number): Promise<void> {
    const { dir, names, logger } = this.opts;
    try {
      const view = await readConfigDirectory(dir, names, this.files);
      if (this.closed || generation !== this.generation) return;
      this.transientFailures = 0;
      this.lastProblem = "";
      this.report(view);
    } catch (err) {
      if (this.closed || generation !== this.generation) return;
      if (isNotFound(err) && ++this.transientFailures <= TRANSIENT_RETRIES) {
        this.changed(); // a file vanished mid-swap: read again shortly
        return;
      }
      this.opts.onReadFailure?.("error");
      const problem = (err as Error).message;
      if (problem !== this.lastProblem) logger.warn({ dir, err: problem }, "cannot read the configuration directory; the values in effect stay");
      this.lastProblem = problem;
    }
    await this.rearm();
  }

  /** Watches the directory, each mounted subdirectory and the `..data` targets (which move with every swap). */
  private async rearm(): Promise<void> {
    if (this.closed || this.opts.fsWatch === false) return;
    const { dir, names } = this.opts;
    const wanted = new Map<string, string>(); // key (path → target) → path to watch
    const add = async (path: string): Promise<void> => {
      try {
        const target = await realpath(path);
        if ((await stat(target)).isDirectory()) wanted.set(`${path}→${target}`, path);
      } catch {
        // absent: nothing to watch
      }
    };
    await add(dir);
    await add(join(dir, KUBELET_DATA_LINK));
    for (const name of names) {
      await add(join(dir, name));
      await add(join(dir, name, KUBELET_DATA_LINK));
    }
    if (this.closed) return;
    for (const [key, w] of this.watchers) {
      if (!wanted.has(key)) {
        w.close();
        this.watchers.delete(key);
      }
    }
    for (const [key, path] of wanted) {
      if (this.watchers.has(key)) continue;
      try {
        const w = watch(path, { persistent: false }, () => this.changed());
        w.on("error", () => {
          // The watched directory went away (an old `..data` target, a removed mount): drop it; the next read re-arms.
          w.close();
          if (this.watchers.get(key) === w) this.watchers.delete(key);
          this.changed();
        });
        this.watchers.set(key, w);
      } catch {
        // Vanished between realpath and watch; the poll and the next event cover it.
      }
    }
  }
}
