/**
 * Reading a file of a configuration directory without letting it stall or flood the process. `readFile` on a FIFO (or
 * a character device) blocks until a writer comes, and every later reload of the directory waited behind it; a
 * 50 MB file was read whole and parsed. Here the file is opened non-blocking, must be a regular file once open (so a
 * file swapped for a FIFO between stat and open is caught too), and is read up to a bound.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** A ConfigMap's data is at most 1 MiB (k8s.io/api core/v1 ConfigMap; the API server refuses more). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export type BoundedRead = { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly reason: string };

/** The bytes of `path` when it is a regular file of at most `maxBytes` bytes; otherwise why not. ENOENT throws. */
export async function readRegularFile(path: string, maxBytes: number = MAX_CONFIG_BYTES): Promise<BoundedRead> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, reason: "it is not a regular file (a FIFO, socket or device is never read)" };
    if (info.size > maxBytes) return { ok: false, reason: tooLarge(info.size, maxBytes) };
    // The size may change while reading: read one byte past the bound to tell.
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) return { ok: false, reason: tooLarge(length, maxBytes) };
      if (length === buffer.length) break;
    }
    if (length === buffer.length) return { ok: false, reason: "it grew while it was read" };
    return { ok: true, bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

function tooLarge(size: number, maxBytes: number): string {
  return `it holds ${size} bytes or more, over ${maxBytes}, a ConfigMap's limit`;
}
