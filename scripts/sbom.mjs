#!/usr/bin/env node
// The image's software bill of materials, an SPDX 2.3 JSON document (https://spdx.github.io/spdx-spec/v2.3/):
// Duckbill itself, the npm packages bundled into dist/bundle/ (dist/bundle-packages.json, written by
// scripts/bundle.mjs), the runtime base's Debian packages (the control files distroless keeps one per package in
// /var/lib/dpkg/status.d/, which the Dockerfile's build stage copies from the runtime base) and its Node.js.
// Deterministic: package order is sorted and `created` is SOURCE_DATE_EPOCH (the commit's time), so two builds of
// one commit write the same bytes (docs/install.md, "Reproducible builds").
//   node scripts/sbom.mjs --base <dir with status.d/ and node-version> --out <file>
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { base: { type: "string" }, out: { type: "string" } } });
if (values.base === undefined || values.out === undefined) {
  process.stderr.write("usage: node scripts/sbom.mjs --base <dir> --out <file>\n");
  process.exit(2);
}

/** Debian control stanzas: `Field: value` lines, continuation lines starting with a space. */
export function parseControl(text) {
  const fields = {};
  let last;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (/^\s/.test(line) && last !== undefined) fields[last] += `\n${line.trim()}`;
    else {
      const at = line.indexOf(":");
      if (at < 0) continue;
      last = line.slice(0, at);
      fields[last] = line.slice(at + 1).trim();
    }
  }
  return fields;
}

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// The build stage's ARGs are in the environment of its RUN lines (Dockerfile).
const commit = process.env.DUCKBILL_COMMIT || "unknown";
const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? "0");
const created = new Date((Number.isFinite(epoch) ? epoch : 0) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
const spdxId = (kind, name, version) => `SPDXRef-${kind}-${`${name}-${version}`.replace(/[^A-Za-z0-9.-]/g, "-")}`;

const npm = JSON.parse(readFileSync(join(root, "dist", "bundle-packages.json"), "utf8")).map((p) => ({
  SPDXID: spdxId("npm", p.name, p.version),
  name: p.name,
  versionInfo: p.version,
  downloadLocation: `https://registry.npmjs.org/${p.name}/-/${p.name.split("/").at(-1)}-${p.version}.tgz`,
  filesAnalyzed: false,
  licenseDeclared: p.license ?? "NOASSERTION",
  externalRefs: [{ referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: `pkg:npm/${p.name.replace("@", "%40")}@${p.version}` }],
}));

const statusDir = join(values.base, "status.d");
const debs = (existsSync(statusDir) ? readdirSync(statusDir) : [])
  .filter((f) => !f.includes("."))
  .sort()
  .map((f) => parseControl(readFileSync(join(statusDir, f), "utf8")))
  .filter((c) => c.Package !== undefined && c.Version !== undefined)
  .map((c) => ({
    SPDXID: spdxId("deb", c.Package, c.Version),
    name: c.Package,
    versionInfo: c.Version,
    ...(c.Source === undefined ? {} : { sourceInfo: `built from the Debian source package ${c.Source}` }),
    downloadLocation: "NOASSERTION",
    filesAnalyzed: false,
    licenseDeclared: "NOASSERTION",
    comment: `Debian package; its licence is in /usr/share/doc/${c.Package}/copyright`,
    externalRefs: [{ referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: `pkg:deb/debian/${c.Package}@${encodeURIComponent(c.Version)}?arch=${c.Architecture ?? "all"}&distro=debian-12` }],
  }));

const nodeVersionFile = join(values.base, "node-version");
const nodeVersion = existsSync(nodeVersionFile) ? readFileSync(nodeVersionFile, "utf8").trim().replace(/^v/, "") : undefined;
const runtime = nodeVersion === undefined ? [] : [{
  SPDXID: spdxId("node", "node", nodeVersion),
  name: "node",
  versionInfo: nodeVersion,
  downloadLocation: `https://nodejs.org/dist/v${nodeVersion}/`,
  filesAnalyzed: false,
  licenseDeclared: "MIT",
  comment: "the Node.js runtime, /nodejs/bin/node",
  externalRefs: [{ referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: `pkg:generic/node@${nodeVersion}` }],
}];

const self = {
  SPDXID: "SPDXRef-duckbill",
  name: pkg.name,
  versionInfo: pkg.version,
  downloadLocation: "NOASSERTION",
  filesAnalyzed: false,
  licenseDeclared: pkg.license,
  ...(commit === "unknown" ? {} : { sourceInfo: `built from commit ${commit}` }),
};
const contained = [...runtime, ...debs, ...npm];
const doc = {
  spdxVersion: "SPDX-2.3",
  dataLicense: "CC0-1.0",
  SPDXID: "SPDXRef-DOCUMENT",
  name: `duckbill-${pkg.version}-image`,
  documentNamespace: `https://spdx.org/spdxdocs/duckbill-${pkg.version}-${commit}`,
  creationInfo: { created, creators: ["Tool: duckbill-scripts-sbom.mjs"] },
  packages: [self, ...contained],
  relationships: [
    { spdxElementId: "SPDXRef-DOCUMENT", relationshipType: "DESCRIBES", relatedSpdxElement: self.SPDXID },
    ...contained.map((p) => ({ spdxElementId: self.SPDXID, relationshipType: "CONTAINS", relatedSpdxElement: p.SPDXID })),
  ],
};
writeFileSync(values.out, `${JSON.stringify(doc, null, 1)}\n`);
process.stderr.write(`sbom: ${values.out}: ${npm.length} npm packages, ${debs.length} Debian packages, node ${nodeVersion ?? "(version unknown)"}\n`);
