#!/usr/bin/env node
// Generates Duckbill's Go type model (src/apis/go-types.generated.ts) from each pinned release's Go types
// (docs/adr/0032-generated-go-type-model.md):
//
//   npm run types:generate            # run scripts/gojson-typegen in each release's module, write the model
//   npm run types:generate -- --check # the same, but fail (exit 1) when the checked-in files differ
//   npm run types:generate -- 1.24    # reflect over one release only (the others' checked-in models are reused)
//   npm run types:generate -- --offline  # no Go: re-render the TypeScript from the checked-in models
//
// For each release in reference/ (1.17, 1.23, 1.24), scripts/gojson-typegen/main.go is built in a temporary copy of
// reference/knative-<release>/go.mod and go.sum, so it reflects over exactly the k8s.io/api, k8s.io/apimachinery,
// knative.dev/pkg, knative.dev/networking and knative.dev/serving that release's webhook is built with. Its output is
// written to reference/typegen/knative-<release>.json (checked in); src/apis/go-types.generated.ts is rendered from
// those three files by renderModel (scripts/types-model.mjs), which the unit tests re-run without Go.
// Needs Go and the module proxy (or a module cache holding the releases' modules).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GENERATED_TS, RELEASE_NAMES, REPO, rawPath, renderModel } from "./types-model.mjs";

function generate(release) {
  const moduleDir = join(REPO, "reference", `knative-${release}`);
  const dir = mkdtempSync(join(tmpdir(), `duckbill-typegen-${release}-`));
  try {
    let gomod = readFileSync(join(moduleDir, "go.mod"), "utf8");
    gomod = gomod.replace(/^module .*$/m, `module duckbill.dev/typegen/knative-${release.replace(".", "-")}`);
    gomod = gomod.replace(/=> \.\.\/harness/g, `=> ${join(REPO, "reference", "harness")}`);
    writeFileSync(join(dir, "go.mod"), gomod);
    copyFileSync(join(moduleDir, "go.sum"), join(dir, "go.sum"));
    copyFileSync(join(REPO, "scripts", "gojson-typegen", "main.go"), join(dir, "main.go"));
    // -mod=mod: the copy's requirements are the release's; go only adds what the reflection program imports
    // directly (all of it already in the release's module graph, so no version changes).
    const env = { ...process.env, GOFLAGS: "-buildvcs=false -mod=mod", GOTOOLCHAIN: "local" };
    const r = spawnSync("go", ["run", "."], { cwd: dir, env, encoding: "utf8", maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`types-generate: ${release}: go run failed:\n${r.stderr}`);
    const model = JSON.parse(r.stdout);
    // The module versions it reflected over, as go reports them.
    const list = spawnSync("go", ["list", "-m", "k8s.io/api", "k8s.io/apimachinery", "knative.dev/pkg", "knative.dev/networking", "knative.dev/serving"], { cwd: dir, env, encoding: "utf8" });
    if (list.status !== 0) throw new Error(`types-generate: ${release}: go list failed:\n${list.stderr}`);
    const modules = list.stdout.trim().split("\n");
    return `${JSON.stringify({ release, modules, structs: model.structs, named: model.named, goNames: model.goNames }, null, 1)}\n`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const check = process.argv.includes("--check");
const offline = process.argv.includes("--offline");
const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
let differs = false;
const raw = {};
for (const release of RELEASE_NAMES) {
  const path = rawPath(release);
  if (offline || (only.length > 0 && !only.includes(release))) {
    raw[release] = readFileSync(path, "utf8");
    continue;
  }
  process.stderr.write(`types-generate: ${release}: reflecting over its Go types\n`);
  raw[release] = generate(release);
  let old = "";
  try { old = readFileSync(path, "utf8"); } catch { /* new */ }
  if (old !== raw[release]) {
    differs = true;
    process.stderr.write(`types-generate: ${path} ${check ? "differs from the generator's output" : "updated"}\n`);
    if (!check) writeFileSync(path, raw[release]);
  }
}
const ts = renderModel(raw);
let oldTs = "";
try { oldTs = readFileSync(GENERATED_TS, "utf8"); } catch { /* new */ }
if (oldTs !== ts) {
  differs = true;
  process.stderr.write(`types-generate: ${GENERATED_TS} ${check ? "differs from the generator's output" : "updated"}\n`);
  if (!check) writeFileSync(GENERATED_TS, ts);
}
if (check && differs) {
  process.stderr.write("types-generate: the checked-in Go type model is not what the generator writes: run npm run types:generate\n");
  process.exit(1);
}
