#!/usr/bin/env node
// Refreshes test/conformance/{vectors/*.jsonl,README.md} from ../shared/conformance, byte for byte.
// The repo keeps its own copy so a fresh clone can run the conformance suite without ../shared.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const source = resolve(repo, "..", "shared", "conformance");
const target = join(repo, "test", "conformance");

function jsonlFiles(dir) {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort() : [];
}

function sameBytes(a, b) {
  return existsSync(b) && readFileSync(a).equals(readFileSync(b));
}

if (!existsSync(join(source, "vectors")) || !statSync(join(source, "vectors")).isDirectory()) {
  console.error(`vectors-sync: ${join(source, "vectors")} not found; the shared conformance corpus must be checked out next to this repo as ../shared`);
  process.exit(1);
}

const changes = [];
const wanted = jsonlFiles(join(source, "vectors"));
if (wanted.length === 0) {
  console.error(`vectors-sync: no *.jsonl files in ${join(source, "vectors")}; refusing to empty test/conformance/vectors`);
  process.exit(1);
}
mkdirSync(join(target, "vectors"), { recursive: true });

const copies = [...wanted.map((f) => [join(source, "vectors", f), join(target, "vectors", f), `vectors/${f}`]), [join(source, "README.md"), join(target, "README.md"), "README.md"]];
for (const [from, to, label] of copies) {
  if (!existsSync(from)) {
    console.error(`vectors-sync: ${from} not found`);
    process.exit(1);
  }
  if (sameBytes(from, to)) continue;
  changes.push(`${existsSync(to) ? "updated" : "added"}   ${label}`);
  writeFileSync(to, readFileSync(from));
}
// Vectors removed upstream are removed here too, so the two file sets stay equal.
for (const f of jsonlFiles(join(target, "vectors"))) {
  if (!wanted.includes(f)) {
    rmSync(join(target, "vectors", f));
    changes.push(`removed   vectors/${f}`);
  }
}

if (changes.length === 0) console.log(`vectors-sync: test/conformance is up to date (${wanted.length} vector files)`);
else {
  for (const c of changes) console.log(c);
  console.log(`vectors-sync: ${changes.length} file(s) changed; run the conformance suite and update test/conformance/known-failures.txt`);
}
