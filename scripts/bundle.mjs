#!/usr/bin/env node
// `npm run build`, second step: bundles the compiled CLI (dist/cli/index.js) and its dependencies into
// dist/bundle/, which bin/duckbill runs. Startup is dominated by module resolution and loading (hundreds of
// ESM and CommonJS files: our own modules, Fastify's dependency tree, ajv, pino); one bundle with a few
// chunks loads in a fraction of that (bench/README.md, "Startup"). Code splitting keeps the lazy imports
// lazy: `admit`, `check`, certificate generation and the cluster client load only when used.
// @kubernetes/client-node stays external: it is imported on demand, only in cluster mode, and bundling it
// would bundle its optional native and WebSocket dependencies too. A dynamic import() of a CommonJS package loses its
// named exports in the bundle (esbuild's interop: `X509CertificateGenerator` was undefined and serve could not
// start without certificates; test/cli and test/dist caught it): such packages are imported statically by a
// module of ours that is itself imported on demand (src/kube/x509-lib.ts).
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist/bundle");
rmSync(outdir, { recursive: true, force: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { index: "dist/cli/index.js" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["@kubernetes/client-node"],
  // Bundled CommonJS packages call require() for Node's built-ins; ESM output has no require of its own.
  banner: { js: "import { createRequire as __duckbillCreateRequire } from 'node:module'; const require = __duckbillCreateRequire(import.meta.url);" },
  // Chained through tsc's maps, so profiles and stack traces (with --enable-source-maps) point at src/*.ts.
  sourcemap: "linked",
  metafile: true,
  logLevel: "warning",
  legalComments: "linked",
});

const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith(".js"));
const total = outputs.reduce((n, [, o]) => n + o.bytes, 0);
const entry = outputs.find(([, o]) => o.entryPoint !== undefined);
process.stderr.write(`bundle: dist/bundle/ ${outputs.length} files, ${(total / 1048576).toFixed(1)} MiB${entry === undefined ? "" : `, entry ${(entry[1].bytes / 1024).toFixed(0)} KiB`}\n`);
