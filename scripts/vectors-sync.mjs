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
/** Each release's vectors: ../shared/conformance/<dir> → test/conformance/<dir> (vectors = Knative 1.17). */
const RELEASE_DIRS = ["vectors", "knative-1.23", "knative-1.24"];
for (const dir of RELEASE_DIRS) {
  const wanted = jsonlFiles(join(source, dir));
  if (wanted.length === 0) {
    console.error(`vectors-sync: no *.jsonl files in ${join(source, dir)}; refusing to empty test/conformance/${dir}`);
    process.exit(1);
  }
  mkdirSync(join(target, dir), { recursive: true });
  for (const f of wanted) {
    const from = join(source, dir, f);
    const to = join(target, dir, f);
    if (sameBytes(from, to)) continue;
    changes.push(`${existsSync(to) ? "updated" : "added"}   ${dir}/${f}`);
    writeFileSync(to, readFileSync(from));
  }
  // Vectors removed upstream are removed here too, so the two file sets stay equal.
  for (const f of jsonlFiles(join(target, dir))) {
    if (!wanted.includes(f)) {
      rmSync(join(target, dir, f));
      changes.push(`removed   ${dir}/${f}`);
    }
  }
}
const readme = [join(source, "README.md"), join(target, "README.md")];
if (!existsSync(readme[0])) {
  console.error(`vectors-sync: ${readme[0]} not found`);
  process.exit(1);
}
if (!sameBytes(readme[0], readme[1])) {
  changes.push(`${existsSync(readme[1]) ? "updated" : "added"}   README.md`);
  writeFileSync(readme[1], readFileSync(readme[0]));
}

if (changes.length === 0) console.log(`vectors-sync: test/conformance is up to date (${RELEASE_DIRS.join(", ")})`);
else {
  for (const c of changes) console.log(c);
  console.log(`vectors-sync: ${changes.length} file(s) changed; run the conformance suite and update the known-failures files`);
}
