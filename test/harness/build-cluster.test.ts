/**
 * test/e2e/build-cluster.sh's progress on stderr (its first build runs for minutes): run here with a stand-in `go` on
 * PATH that prints what `go mod download -x` and `go build -v` print, so the test needs neither Go nor the network.
 * Every progress line names what is being downloaded or compiled and the time since the start; errors of the tools
 * pass through; stdout's last line is the cache directory, and a second run is a silent cache hit.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROOT } from "../support/build.js";

const SCRIPT = join(ROOT, "test", "e2e", "build-cluster.sh");

/** A `go` that answers the five commands the script runs; FAKE_GO_FAIL=1 makes the build fail. */
const FAKE_GO = `#!/bin/sh
case "$1 $2" in
  "env GOVERSION") echo go1.99-fake ;;
  "list -m") echo v1.36.3 ;;
  "list -deps") printf 'fmt\\nk8s.io/api/core/v1\\nk8s.io/kubernetes/cmd/kube-apiserver/app\\n' ;;
  "mod download")
    for m in k8s.io/api k8s.io/apimachinery; do
      echo "# get https://proxy.golang.org/$m/@v/v0.36.3.zip" >&2
      echo "# get https://proxy.golang.org/$m/@v/v0.36.3.zip: 200 OK (0.012s)" >&2
    done ;;
  build*)
    echo k8s.io/api/core/v1 >&2
    if [ "$FAKE_GO_FAIL" = 1 ]; then echo "./main.go:1:1: expected 'package', found 'EOF'" >&2; exit 1; fi
    echo k8s.io/kubernetes/cmd/kube-apiserver/app >&2
    while [ "$1" != "-o" ]; do shift; done
    printf '#!/bin/sh\\n' > "$2"; chmod +x "$2" ;;
  *) echo "fake go: $*" >&2; exit 2 ;;
esac
`;

let dir = "";

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "duckbill-build-cluster-"));
  writeFileSync(join(dir, "go"), FAKE_GO);
  chmodSync(join(dir, "go"), 0o755);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function build(extra: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, PATH: `${dir}:${process.env.PATH ?? ""}`, DUCKBILL_E2E_CACHE: join(dir, "cache"), E2E_PROGRESS_SECONDS: "0", ...extra };
  return spawnSync("bash", [SCRIPT], { encoding: "utf8", env });
}

describe("build-cluster.sh", () => {
  it("says on stderr what it downloads and compiles, with the elapsed time, then prints the cache directory", () => {
    const r = build();
    expect(r.status).toBe(0);
    const lines = r.stderr.trimEnd().split("\n");
    for (const l of lines) expect(l).toMatch(/^build-cluster: .*\(\d+m\d{2}s\)$|^build-cluster: built in \d+s /);
    expect(lines).toEqual([
      expect.stringMatching(/^build-cluster: building kube-apiserver v1\.36\.3 \+ etcd \+ kubectl into .*cache\/[0-9a-f]{16}-go1\.99-fake \(first time only; about 7 minutes on 2 cores\) \(0m0\ds\)$/),
      expect.stringMatching(/^build-cluster: downloading the modules go\.sum lists \(\d+; those already in the module cache are not fetched again\) /),
      expect.stringMatching(/^build-cluster: modules downloaded: 1, latest k8s\.io\/api \(/),
      expect.stringMatching(/^build-cluster: modules downloaded: 2, latest k8s\.io\/apimachinery \(/),
      expect.stringMatching(/^build-cluster: modules downloaded: 2, done \(/),
      expect.stringMatching(/^build-cluster: compiling 3 packages \(those in Go's build cache are not compiled again\) and linking \(/),
      expect.stringMatching(/^build-cluster: packages compiled: 1 of 3, latest k8s\.io\/api\/core\/v1 \(/),
      expect.stringMatching(/^build-cluster: packages compiled: 2 of 3, latest k8s\.io\/kubernetes\/cmd\/kube-apiserver\/app \(/),
      expect.stringMatching(/^build-cluster: packages compiled: 2 of 3, done \(/),
      expect.stringMatching(/^build-cluster: built in \d+s /),
    ]);
    const out = r.stdout.trim().split("\n").at(-1) ?? "";
    expect(existsSync(join(out, "cluster"))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, "build.json"), "utf8"))).toMatchObject({ kubernetes: "v1.36.3", go: "go1.99-fake" });

    const again = build();
    expect(again).toMatchObject({ status: 0, stderr: "", stdout: `${out}\n` });
  });

  it("passes the build's errors through and fails", () => {
    const r = build({ FAKE_GO_FAIL: "1" });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("\n./main.go:1:1: expected 'package', found 'EOF'\n");
    expect(r.stdout).toBe("");
  });
});
