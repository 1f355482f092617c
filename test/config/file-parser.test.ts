/**
 * Configuration files parsed on a worker thread (src/config/sources/file-parser.ts), with the built worker script
 * (dist/, as `serve` runs it): the answers are readConfigFile's, and a parse that takes too long or needs too much
 * memory is an invalid file, never a stalled or crashed server.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/dir.js";
import { configFileParser, inlineParser, type ConfigFileParser } from "../../src/config/sources/file-parser.js";
import { ensureBuilt, ROOT } from "../support/build.js";

const WORKER = pathToFileURL(join(ROOT, "dist", "config", "sources", "config-file-worker.js"));

function manyKeys(n: number): string {
  return "kind: ConfigMap\ndata:\n" + Array.from({ length: n }, (_, i) => `  key-${i}: "Enabled"\n`).join("");
}

async function withParser<T>(parser: ConfigFileParser, f: (p: ConfigFileParser) => Promise<T>): Promise<T> {
  try {
    return await f(parser);
  } finally {
    await parser.close();
  }
}

describe("configuration files parsed on a worker thread", () => {
  beforeAll(ensureBuilt);

  it("answers as readConfigFile does, with maps without a prototype", async () => {
    await withParser(configFileParser({ script: WORKER }), async (parser) => {
      expect(parser).not.toBe(inlineParser);
      for (const text of ["", "a: 1\n", "- a\n", "{}\n", 'a: "x"\na: "y"\n', manyKeys(16000)]) {
        expect(await parser.parse("f.yaml", text)).toEqual(readConfigFile("f.yaml", text));
      }
      const got = await parser.parse("f.json", '{"__proto__": "x", "constructor": "y"}');
      expect(got.kind).toBe("data");
      const data = (got as { data: Record<string, string> }).data;
      expect(Object.getPrototypeOf(data)).toBeNull();
      expect(Object.keys(data)).toEqual(["__proto__", "constructor"]);
      expect(data.__proto__).toBe("x");
    });
  });

  it("gives up a parse that takes longer than its bound, and parses the next file on a new thread", async () => {
    await withParser(configFileParser({ script: WORKER, timeoutMs: 1 }), async (parser) => {
      expect(await parser.parse("big.yaml", manyKeys(40000))).toEqual({ kind: "invalid", error: 'config file "big.yaml" was not parsed within 1 ms; it is ignored' });
    });
    await withParser(configFileParser({ script: WORKER }), async (parser) => {
      expect(await parser.parse("small.yaml", "a: b\n")).toEqual({ kind: "data", data: { a: "b" } });
    });
  });

  it("answers a file whose parse needs more than the thread's heap as invalid", async () => {
    await withParser(configFileParser({ script: WORKER, maxHeapMb: 4 }), async (parser) => {
      const got = await parser.parse("big.yaml", manyKeys(40000));
      expect(got).toEqual({ kind: "invalid", error: 'config file "big.yaml" needs more than 4 MB to parse' });
    });
  });

  it("parses in line where there is no built worker script (sources run by vitest)", () => {
    expect(configFileParser({ script: pathToFileURL(join(ROOT, "no-such-worker.js")) })).toBe(inlineParser);
  });
});
