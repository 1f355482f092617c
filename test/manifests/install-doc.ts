/**
 * The command blocks of docs/install.md that install and uninstall Duckbill, as the document marks them
 * (`<!-- e2e: NAME ... -->` right before a ```sh block): what test/manifests/install-doc.test.ts checks and what
 * test/e2e/install.test.ts runs, so that the guide and the tests cannot drift apart.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const INSTALL_DOC = join(import.meta.dirname, "..", "..", "docs", "install.md");

export const BLOCK_NAMES = ["standalone-install", "standalone-uninstall", "replace-install", "replace-uninstall"] as const;
export type BlockName = (typeof BLOCK_NAMES)[number];

/** Each marked block's text (the lines between the fences). Throws when a block is missing or marked twice. */
export function installBlocks(text = readFileSync(INSTALL_DOC, "utf8")): Record<BlockName, string> {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/<!-- e2e: ([a-z-]+)[^\n]*-->\n```sh\n([\s\S]*?)\n```/g)) {
    const [, name = "", body = ""] = m;
    if (found.has(name)) throw new Error(`docs/install.md marks ${name} twice`);
    found.set(name, body);
  }
  const out = {} as Record<BlockName, string>;
  for (const name of BLOCK_NAMES) {
    const body = found.get(name);
    if (body === undefined) throw new Error(`docs/install.md has no block marked e2e: ${name}`);
    out[name] = body;
  }
  return out;
}

/** The block's commands: one a line, comments and blank lines dropped. */
export function commands(block: string): string[] {
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}
