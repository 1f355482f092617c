/**
 * What the Dockerfile says, read the way `docker build` reads it (`npm test` runs no container engine): global ARGs, stages
 * with their base image, WORKDIR, COPY instructions and entry point, and the runtime stage's file tree built on disk
 * as its COPY lines would build it in the image.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, posix } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

export interface Copy {
  /** `--from=` stage, undefined for the build context. */
  readonly from?: string;
  readonly sources: readonly string[];
  readonly dest: string;
}

export interface Stage {
  readonly name?: string;
  readonly image: string;
  readonly workdir: string;
  readonly copies: readonly Copy[];
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
}

/** The instructions, continuation lines joined and comments dropped. */
function instructions(text: string): Array<{ op: string; rest: string }> {
  const out: Array<{ op: string; rest: string }> = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    if (pending === "" && /^\s*#/.test(raw)) continue;
    const line = raw.replace(/\s+$/, "");
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = "";
    if (full === "") continue;
    const m = /^(\S+)\s*(.*)$/.exec(full);
    if (m !== null) out.push({ op: m[1]!.toUpperCase(), rest: m[2]! });
  }
  return out;
}

export function parseDockerfile(text = readFileSync(join(ROOT, "Dockerfile"), "utf8")): { args: Record<string, string>; stages: Stage[] } {
  const args: Record<string, string> = {};
  const stages: Array<{ name?: string; image: string; workdir: string; copies: Copy[]; entrypoint?: string[]; cmd?: string[] }> = [];
  const expand = (s: string): string => s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_m, a?: string, b?: string) => args[(a ?? b)!] ?? "");
  for (const { op, rest } of instructions(text)) {
    const stage = stages.at(-1);
    if (op === "ARG" && stage === undefined) {
      const [k = "", v = ""] = rest.split(/=(.*)/s);
      args[k] = v;
    } else if (op === "FROM") {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (m === null) throw new Error(`FROM ${rest}: not understood`);
      stages.push({ image: expand(m[1]!), name: m[2], workdir: "/", copies: [] });
    } else if (stage === undefined) {
      throw new Error(`${op} before the first FROM`);
    } else if (op === "WORKDIR") {
      stage.workdir = posix.resolve(stage.workdir, rest);
    } else if (op === "COPY") {
      const words = rest.split(/\s+/);
      const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
      if (words.some((w) => w.startsWith("--") && !w.startsWith("--from="))) throw new Error(`COPY ${rest}: flags other than --from are not simulated`);
      const paths = words.filter((w) => !w.startsWith("--"));
      stage.copies.push({ from, sources: paths.slice(0, -1), dest: paths.at(-1)! });
    } else if (op === "ENTRYPOINT" || op === "CMD") {
      const list = JSON.parse(rest) as string[];
      if (op === "ENTRYPOINT") stage.entrypoint = list;
      else stage.cmd = list;
    }
  }
  return { args, stages };
}

/** .dockerignore's patterns (the plain names and directory names this repository uses). */
export function dockerignored(path: string): boolean {
  const patterns = readFileSync(join(ROOT, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const clean = posix.normalize(path).replace(/^\.\//, "").replace(/\/$/, "");
  return patterns.some((p) => clean === p || clean.startsWith(`${p}/`));
}

/** Files matching one COPY source; `*` is allowed in its last segment. */
function expandSource(base: string, source: string): string[] {
  const dir = join(base, dirname(source));
  const last = basename(source);
  if (!last.includes("*")) return existsSync(join(base, source)) ? [join(base, source)] : [];
  const re = new RegExp(`^${last.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")}$`);
  return existsSync(dir) ? readdirSync(dir).filter((n) => re.test(n)).map((n) => join(dir, n)) : [];
}

/**
 * Builds the final stage's files under `dest` (its WORKDIR), as its COPY lines would: context sources from the
 * repository, `--from=<stage>` sources from that stage's WORKDIR, which holds the repository's files and the build's
 * output (dist/ of `npm run build` here). Throws where the image build would fail: a source that matches nothing,
 * or a context source .dockerignore leaves out.
 */
export function buildRuntimeTree(dest: string, parsed = parseDockerfile()): Stage {
  const runtime = parsed.stages.at(-1)!;
  mkdirSync(dest, { recursive: true });
  for (const copy of runtime.copies) {
    const from = copy.from === undefined ? undefined : parsed.stages.find((s) => s.name === copy.from);
    if (copy.from !== undefined && from === undefined) throw new Error(`COPY --from=${copy.from}: no such stage`);
    const relative = copy.sources.map((s) => {
      if (from === undefined) {
        if (dockerignored(s)) throw new Error(`COPY ${s}: excluded by .dockerignore`);
        return s;
      }
      if (!s.startsWith(`${from.workdir}/`)) throw new Error(`COPY --from=${copy.from} ${s}: outside the stage's WORKDIR ${from.workdir}`);
      return s.slice(from.workdir.length + 1);
    });
    const files = relative.flatMap((s) => {
      const hits = expandSource(ROOT, s);
      if (hits.length === 0) throw new Error(`COPY ${s}: matches nothing (the image build would fail)`);
      return hits;
    });
    const target = posix.resolve(runtime.workdir, copy.dest);
    const inTree = join(dest, posix.relative(runtime.workdir, target));
    const intoDir = copy.dest.endsWith("/") || files.length > 1;
    for (const f of files) {
      const to = statSync(f).isDirectory() ? inTree : intoDir ? join(inTree, basename(f)) : inTree;
      mkdirSync(statSync(f).isDirectory() ? to : dirname(to), { recursive: true });
      cpSync(f, to, { recursive: true });
    }
  }
  return runtime;
}

/** Every file below `dir`, as paths relative to it. */
export function filesBelow(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile()).sort();
}
