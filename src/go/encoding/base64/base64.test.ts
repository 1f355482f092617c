import { describe, expect, it } from "vitest";
import { decodeStdBase64 } from "./base64.js";

// Produced by Go's base64.StdEncoding.Decode.
const GO_BASE64: ReadonlyArray<readonly [input: string, bytes: string | undefined, errorOffset?: number]> = [
  ["aGk", undefined, 0],
  ["aGk=a", undefined, 4],
  ["a===", undefined, 1],
  ["aGk=\n", "hi"],
  ["YQ", undefined, 0],
  ["Y", undefined, 0],
  ["YQ==YQ==", undefined, 4],
  ["YQ=", undefined, 3],
  ["Y===", undefined, 1],
  ["aGk!", undefined, 3],
  ["a!Gk", undefined, 1],
  ["aG\nk=", "hi"],
  ["aGkx", "hi1"],
  ["", ""],
  ["====", undefined, 0],
  ["YQ==\r\n", "a"],
  ["YQ=\n=", "a"],
];

describe("decodeStdBase64 matches base64.StdEncoding.Decode", () => {
  for (const [input, bytes, offset] of GO_BASE64) {
    it(JSON.stringify(input), () => {
      const r = decodeStdBase64(input);
      if (bytes === undefined) expect(r).toEqual({ ok: false, error: `illegal base64 data at input byte ${offset ?? -1}` });
      else expect(r.ok && r.bytes.toString("latin1")).toBe(bytes);
    });
  }
});
