/**
 * []byte fields in JSON: Go's base64.StdEncoding.Decode (padded, non-strict, `\r` and `\n` skipped),
 * ported quantum by quantum so that CorruptInputError offsets match (golang/go src/encoding/base64).
 */
import { utf8Bytes } from "../json/go-strings.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE_MAP = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE_MAP[ALPHABET.charCodeAt(i)] = i;

const PAD = 0x3d; // =

function isNewline(c: number): boolean {
  return c === 0x0a || c === 0x0d;
}

export type Base64Decode = { ok: true; bytes: Buffer } | { ok: false; error: string };

function corrupt(offset: number): Base64Decode {
  return { ok: false, error: `illegal base64 data at input byte ${offset}` };
}

/** base64.StdEncoding.Decode of a Go string. */
export function decodeStdBase64(text: string): Base64Decode {
  const src = utf8Bytes(text);
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let trailingGarbage = -1;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return { ok: true, bytes: Buffer.from(out) };
        // Padding is required, so a short final quantum is corrupt.
        return corrupt(si - j);
      }
      const c = src.charCodeAt(si);
      si++;
      const v = c < 256 ? (DECODE_MAP[c] as number) : -1;
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) return corrupt(si - 1);
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src.charCodeAt(si))) si++;
        if (si === src.length) return corrupt(src.length);
        if (src.charCodeAt(si) !== PAD) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src.charCodeAt(si))) si++;
      if (si < src.length) trailingGarbage = si;
      dlen = j;
      break;
    }
    const val = ((dbuf[0] as number) << 18) | ((dbuf[1] as number) << 12) | ((dbuf[2] as number) << 6) | (dbuf[3] as number);
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    for (let k = 0; k < dlen - 1; k++) out.push(bytes[k] as number);
    if (trailingGarbage >= 0) return corrupt(trailingGarbage);
  }
  return { ok: true, bytes: Buffer.from(out) };
}
