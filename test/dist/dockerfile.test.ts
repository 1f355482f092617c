/**
 * The Dockerfile, read statically (`npm test` needs no container engine, so the image is not built here; test/dist/
 * image.test.ts builds and runs the runtime stage's file tree, and the opt-in test/image/ builds the image with podman
 * and runs it): the build stage has every file `npm run build`
 * reads (a script added to the build once broke the image this way), .dockerignore keeps none of them out, both
 * base images are pinned by digest and are the same Node.js major, one the package supports.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IMAGE_NODE_FLAGS } from "../../bench/lib/paths.mjs";
import { dockerignored, parseDockerfile, ROOT } from "./dockerfile.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string>; engines: { node: string } };
const { stages } = parseDockerfile();
const build = stages.find((s) => s.name === "build");
const runtime = stages.at(-1)!;

describe("Dockerfile build stage", () => {
  const copied = (build?.copies ?? []).filter((c) => c.from === undefined).flatMap((c) => c.sources);
  it.each(["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "src"])("copies %s", (f) => {
    expect(copied).toContain(f);
  });
  it("copies every file the build script runs with node", () => {
    const scripts = [...pkg.scripts.build!.matchAll(/\bnode (\S+)/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect(copied.some((c) => s === c || s.startsWith(c.replace(/\/?$/, "/"))), s).toBe(true);
  });
});

describe("Dockerfile", () => {
  it("copies nothing from the context that .dockerignore leaves out", () => {
    const fromContext = stages.flatMap((s) => s.copies.filter((c) => c.from === undefined).flatMap((c) => c.sources));
    expect(fromContext.length).toBeGreaterThan(0);
    expect(fromContext.filter(dockerignored)).toEqual([]);
  });

  it("pins both base images by digest", () => {
    // runtime-base (read for the bill of materials), build, and the runtime on the same image as runtime-base.
    expect(stages.map((s) => s.name)).toEqual(["runtime-base", "build", undefined]);
    expect(stages[0]!.image).toBe(runtime.image);
    for (const s of stages) expect(s.image).toMatch(/^[a-z0-9./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
  });

  it("builds and runs on one Node.js major, at or above the package's lowest", () => {
    const buildMajor = /^node:(\d+)-/.exec(build?.image ?? "")?.[1];
    const runtimeMajor = /\/nodejs(\d+)-/.exec(runtime.image)?.[1];
    expect(buildMajor).toBeDefined();
    expect(runtimeMajor).toBe(buildMajor);
    const lowest = /^>=(\d+)\./.exec(pkg.engines.node)?.[1];
    expect(Number(runtimeMajor)).toBeGreaterThanOrEqual(Number(lowest));
  });

  it("runs as a non-root user, `duckbill serve` through the launcher", () => {
    expect(runtime.image).toContain(":nonroot@");
    expect(runtime.entrypoint).toEqual(["/nodejs/bin/node", "--max-semi-space-size=4", "--max-old-space-size=384", "--no-maglev", "bin/duckbill"]);
    expect(runtime.cmd).toEqual(["serve"]);
  });

  it("runs node with the same flags as bin/duckbill's launcher line and `npm start`", () => {
    // The bench reads the flags from the launcher line too (bench/lib/paths.mjs), so its servers and the floor run as the image does.
    const launcher = IMAGE_NODE_FLAGS.split(" ");
    expect(launcher).toEqual(["--max-semi-space-size=4", "--max-old-space-size=384", "--no-maglev"]);
    expect(runtime.entrypoint?.slice(1, -1)).toEqual(launcher);
    expect(pkg.scripts.start).toBe(`node ${launcher.join(" ")} bin/duckbill serve`);
  });
});
