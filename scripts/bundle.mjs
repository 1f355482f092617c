#!/usr/bin/env node
// `npm run build`, second step: bundles the compiled CLI (dist/cli/index.js) and its dependencies into
// dist/bundle/, which bin/duckbill runs. Startup is dominated by module resolution and loading (hundreds of
// ESM and CommonJS files: our own modules, Fastify's dependency tree, ajv, pino); one bundle with a few
// chunks loads in a fraction of that (bench/README.md, "Startup"). Code splitting keeps the lazy imports
// lazy: `admit`, `check` and the cluster client load only when used (certificate generation: on its own thread, below).
// Every dependency is bundled, @kubernetes/client-node included (in the chunks cluster mode loads on demand), so the
// bundle runs without node_modules: the image copies dist/bundle/ and nothing else of the dependencies (Dockerfile;
// test/dist/image.test.ts runs that tree). The only imports left are Node's built-ins and three optional packages
// that are required inside try/catch and done without: ws's native add-ons (bufferutil, utf-8-validate) and
// node-fetch's charset converter (encoding), all three absent from the production dependencies.
// A dynamic import() of a CommonJS package loses its named exports in the bundle (esbuild's interop:
// `X509CertificateGenerator` was undefined and serve could not start without certificates; test/cli and test/dist
// caught it): such packages are imported statically by a module of ours that is itself imported on demand
// (src/certs/certificate-signing.ts).
// Certificates are issued on a worker thread, its own entry below (src/certs/certificate-issuer.ts), so that the
// X.509 library never enters a serving process's heap. The issuer's in-line fallback, for sources run without a
// build, imports the signing module on demand; in the bundle that import would put the library into the CLI's graph
// (a chunk any process could load), so here it resolves to a module that says the thread's script is missing, the
// only case in which the bundle would take that path. test/dist/certificate-thread.test.ts checks the graph.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist/bundle");
rmSync(outdir, { recursive: true, force: true });

// The commit `duckbill version` reports (src/cli/version.ts): DUCKBILL_COMMIT when set (`docker build --build-arg
// DUCKBILL_COMMIT=...`: the image's build context has no .git), else `git rev-parse --short HEAD` with `-dirty` when
// tracked files differ from it, else "unknown" (a source tarball, no git). Only a checkout whose top level is this
// directory counts: a tarball unpacked inside another repository is not that repository's commit.
function buildCommit() {
  const given = process.env.DUCKBILL_COMMIT;
  if (given !== undefined && given !== "") return given;
  const git = (...args) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    if (realpathSync(git("rev-parse", "--show-toplevel")) !== realpathSync(root)) return "unknown";
    const commit = git("rev-parse", "--short", "HEAD");
    return git("status", "--porcelain", "--untracked-files=no") === "" ? commit : `${commit}-dirty`;
  } catch {
    return "unknown";
  }
}
const commit = buildCommit();

const issuanceOnItsThread = {
  name: "issuance-on-its-thread",
  setup(b) {
    b.onResolve({ filter: /^\.\/certificate-signing\.js$/ }, (args) =>
      args.kind === "dynamic-import" && args.importer.endsWith(join("dist", "certs", "certificate-issuer.js")) ? { path: "certificate-signing-in-line", namespace: "duckbill" } : undefined,
    );
    b.onLoad({ filter: /^certificate-signing-in-line$/, namespace: "duckbill" }, () => ({
      contents: 'export function sign() { return Promise.reject(new Error("certificate issuance runs on its own thread, and its script certificate-worker.js is missing beside the bundle")); }',
      loader: "js",
    }));
  },
};

const result = await build({
  absWorkingDir: root,
  // The threads that parse --config-dir files (src/config/sources/file-parser.ts) and issue certificates
  // (src/certs/certificate-issuer.ts) load their own entries beside the chunks.
  entryPoints: {
    index: "dist/cli/index.js",
    "config-file-worker": "dist/config/sources/config-file-worker.js",
    "certificate-worker": "dist/certs/certificate-worker.js",
  },
  plugins: [issuanceOnItsThread],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Optional (see above): never bundled, absent at run time.
  external: ["bufferutil", "utf-8-validate", "encoding"],
  define: { __DUCKBILL_COMMIT__: JSON.stringify(commit) },
  // Bundled CommonJS packages call require() for Node's built-ins; ESM output has no require of its own.
  banner: { js: "import { createRequire as __duckbillCreateRequire } from 'node:module'; const require = __duckbillCreateRequire(import.meta.url);" },
  // Chained through tsc's maps, so profiles and stack traces (with --enable-source-maps) point at src/*.ts.
  sourcemap: "linked",
  // Whitespace only: V8 keeps every loaded module's source text in the heap for lazy compilation (≈ 3.3 MB for
  // serve), and indentation and comments were a third of it. Names and syntax stay, so stack traces, class names
  // in messages and the generated code are unchanged (a full minify with keepNames cost 15–20 % CPU per request).
  minifyWhitespace: true,
  metafile: true,
  logLevel: "warning",
  legalComments: "linked",
});

// What each output imports, for the test that checks the image's files are all the bundle needs (test/dist).
writeFileSync(join(root, "dist", "bundle-meta.json"), JSON.stringify(result.metafile));

// The licences of the packages bundled (the image has no node_modules that would carry them): each package's name,
// version, licence field and licence file, as npm installed them.
const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const at = input.lastIndexOf("node_modules/");
  if (at < 0) continue;
  const rest = input.slice(at + "node_modules/".length).split("/");
  packages.add(input.slice(0, at) + "node_modules/" + rest.slice(0, rest[0].startsWith("@") ? 2 : 1).join("/"));
}
const notices = [...packages].sort().map((dir) => {
  const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  const file = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)/i.test(f));
  const text = file !== undefined && existsSync(join(root, dir, file)) ? readFileSync(join(root, dir, file), "utf8").trim() : `(no licence file; package.json says ${JSON.stringify(pkg.license ?? null)})`;
  return `${pkg.name}@${pkg.version} (${typeof pkg.license === "string" ? pkg.license : "see below"})\n\n${text}\n`;
});
// The same packages as data, for the image's bill of materials (scripts/sbom.mjs); beside the bundle, not in it.
const bundled = [...packages].sort().map((dir) => {
  const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  return { name: pkg.name, version: pkg.version, license: typeof pkg.license === "string" ? pkg.license : null };
});
writeFileSync(join(root, "dist", "bundle-packages.json"), `${JSON.stringify(bundled, null, 1)}\n`);
writeFileSync(join(outdir, "THIRD-PARTY-LICENSES.txt"), `Packages bundled into dist/bundle/ (scripts/bundle.mjs), with their licences.\n\n${notices.join(`\n${"-".repeat(80)}\n\n`)}`);

const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith(".js"));
const total = outputs.reduce((n, [, o]) => n + o.bytes, 0);
const entry = outputs.find(([, o]) => o.entryPoint === "dist/cli/index.js");
process.stderr.write(`bundle: dist/bundle/ ${outputs.length} files, ${(total / 1048576).toFixed(1)} MiB${entry === undefined ? "" : `, entry ${(entry[1].bytes / 1024).toFixed(0)} KiB`}, commit ${commit}\n`);
