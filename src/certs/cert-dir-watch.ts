/**
 * Follows `--cert-dir` while serving: a certificate replaced on disk is served to new handshakes without a restart.
 * The ways files get replaced there:
 * - kubelet's AtomicWriter (kubernetes pkg/volume/util/atomic_writer.go), for a mounted Secret: every file is a symlink
 *   through `..data`, which points at a timestamped directory (`..2026_01_02_03_04_05.123456789`); an update
 *   writes a new timestamped directory, points `..data_tmp` at it and renames that over `..data`, then removes
 *   the old directory. The directory's own entries are renamed, the files behind them never change in place;
 * - a temp file renamed over the old one (how writeTlsMaterial here, and most tools that replace files, write);
 * - a file rewritten in place (a person, a script).
 * fs.watch on the directory reports all three on Linux, but misses changes behind a symlink that points
 * elsewhere and does not work on some filesystems (NFS, some FUSE and overlay mounts), and it follows the
 * directory's inode, not its path. So a poll compares the files' contents every few seconds too, and the watch
 * is set up again when the path names another directory. Reads wait for a quiet moment after the last event, so
 * a pair written one file after the other is read once, whole.
 *
 * New files are loaded with the loader the start uses (`loadTlsMaterial`: both files present, parsing, the key
 * being the certificate's, currently valid, signed by ca.crt when there is one). Anything it refuses leaves
 * the certificate in service as it is, with one warning per content.
 */
import { createHash } from "node:crypto";
import { watch, type FSWatcher } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "pino";
import { readRegularFile } from "../config/sources/bounded-read.js";
import { loadTlsMaterial, MAX_CERT_FILE_BYTES } from "./tls-files.js";
import { TLS_FILE_NAMES, WEBHOOK_SECRET_KEYS, type TlsMaterial } from "./tls-material.js";

/** How often the files are compared when no fs.watch event came (a replaced certificate is served within this plus the debounce). */
export const CERT_DIR_POLL_MS = 2_000;
/** Quiet time after the last file event before reading: kubelet's swap and a rename-per-file writer are done by then. */
export const CERT_DIR_DEBOUNCE_MS = 300;

export interface CertDirWatchOptions {
  readonly dir: string;
  /** The material served now (what the start loaded from `dir`). */
  readonly served: TlsMaterial;
  /** Serves new material; called only with a whole key and certificate that belong together. */
  readonly onTls: (m: TlsMaterial) => void;
  readonly logger: Logger;
  readonly pollMs?: number;
  readonly debounceMs?: number;
  /** fs.watch on (default true); off leaves only the poll. */
  readonly fsWatch?: boolean;
}

const FILE_NAMES = [...new Set([...Object.values(TLS_FILE_NAMES), ...Object.values(WEBHOOK_SECRET_KEYS)])];

/** A digest of every file the loader may read, following symlinks (kubelet's `..data`); absent ones count too. */
async function contentDigest(dir: string): Promise<string> {
  const h = createHash("sha256");
  for (const name of FILE_NAMES) {
    // Bounded and non-blocking (a FIFO named like a certificate would otherwise hold every later poll).
    const read = await readRegularFile(join(dir, name), MAX_CERT_FILE_BYTES).catch((err: NodeJS.ErrnoException) => ({ ok: false as const, reason: `\0${err.code ?? "error"}` }));
    h.update(name).update("\0").update(read.ok ? read.bytes : `\0${read.reason}`).update("\0");
  }
  return h.digest("hex");
}

/** The directory the path names now (device and inode), or undefined when there is none. */
async function identity(dir: string): Promise<string | undefined> {
  const st = await stat(dir).catch(() => undefined);
  return st?.isDirectory() === true ? `${st.dev}:${st.ino}` : undefined;
}

export class CertDirWatch {
  private served: TlsMaterial;
  /** Digest of the content last dealt with for good (served, or the same as what is served). */
  private settled: string | undefined;
  /** Digest and reason of the last warning, so a refused content is reported once. */
  private warned = "";
  private watcher: FSWatcher | undefined;
  private watched: string | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private debounceTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** Loads of new content done so far, whatever their outcome (tests wait on it instead of the clock). */
  loads = 0;

  constructor(private readonly opts: CertDirWatchOptions) {
    this.served = opts.served;
  }

  /** Watches and polls; the first check runs at once (the files may have changed since the start read them). */
  start(): void {
    this.pollTimer = setInterval(() => this.run(() => this.poll()), this.opts.pollMs ?? CERT_DIR_POLL_MS);
    this.pollTimer.unref();
    this.run(() => this.check());
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    this.watcher?.close();
    this.watcher = undefined;
    await this.running;
  }

  /** A file event, or a poll that saw new content: check once things are quiet. */
  private changed(): void {
    if (this.closed) return;
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      this.run(() => this.check());
    }, this.opts.debounceMs ?? CERT_DIR_DEBOUNCE_MS);
    this.debounceTimer.unref();
  }

  /** One task at a time; a request while one runs is coalesced into a single check afterwards. */
  private run(task: () => Promise<void>): void {
    if (this.closed) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    // The watch first, then the read: a change made after the read is then always seen.
    this.running = this.rewatch()
      .then(task)
      .catch((err: unknown) => this.opts.logger.warn({ certDir: this.opts.dir, err: (err as Error).message }, "checking the certificate directory failed; serving the certificate in use"))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.run(() => this.check());
        }
      });
  }

  private async poll(): Promise<void> {
    if ((await contentDigest(this.opts.dir)) !== this.settled) this.changed();
  }

  private async check(): Promise<void> {
    const before = await contentDigest(this.opts.dir);
    if (before === this.settled) return;
    try {
      await this.load(before);
    } finally {
      this.loads++;
    }
  }

  /** Loads content that differs from the settled one, and serves it when it can be served. */
  private async load(before: string): Promise<void> {
    const { dir, logger } = this.opts;
    const loaded = await loadTlsMaterial(dir).then(
      (m) => ({ m }),
      (err: unknown) => ({ problem: (err as Error).message }),
    );
    const after = await contentDigest(dir);
    if (this.closed) return;
    // A file replaced during the read (kubelet's swap between the certificate and the key): read again when quiet.
    if (after !== before) return this.changed();
    if ("problem" in loaded) return this.refuse(before, loaded.problem);
    const { m } = loaded;
    if (m.cert !== this.served.cert || m.key !== this.served.key) {
      try {
        this.opts.onTls(m);
      } catch (err) {
        return this.refuse(before, `serving it failed: ${(err as Error).message}`);
      }
      this.served = m;
      logger.info({ certDir: dir, notAfter: m.notAfter.toISOString() }, "reloaded TLS certificate");
    }
    this.settled = before;
    this.warned = "";
  }

  /**
   * Keeps the certificate in use and says why, once per content and reason. The content stays unsettled, so
   * the poll loads it again: a certificate that is not valid yet is taken once it is.
   */
  private refuse(digest: string, problem: string): void {
    const key = `${digest}\0${problem}`;
    if (key === this.warned) return;
    this.warned = key;
    this.opts.logger.warn(
      { certDir: this.opts.dir, err: problem, notAfter: this.served.notAfter.toISOString() },
      "the certificate directory's new files are not usable; serving the certificate in use",
    );
  }

  /** Watches the directory the path names now: again after it was replaced (a new mount, a renamed directory). */
  private async rewatch(): Promise<void> {
    if (this.closed || this.opts.fsWatch === false) return;
    const now = await identity(this.opts.dir);
    if (this.closed || (now === this.watched && this.watcher !== undefined)) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watched = now;
    if (now === undefined) return; // gone: the poll looks again
    try {
      const w = watch(this.opts.dir, { persistent: false }, () => this.changed());
      w.on("error", () => {
        // The directory went away under the watch; the next check watches whatever the path names then.
        w.close();
        if (this.watcher === w) this.watcher = undefined;
        this.changed();
      });
      this.watcher = w;
    } catch {
      this.watched = undefined; // replaced between stat and watch: the next poll tries again
    }
  }
}
