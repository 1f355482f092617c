#!/usr/bin/env node
// Hostile bodies of issue [13]: one AdmissionReview just under the 3 MiB body limit whose pod spec has one list
// of ~1 M empty entries (env, volumeMounts, ports, volumes, ...), answered in process through answerReview, one
// child process per body so each peak RSS is its own. Prints, per body and path: CPU ms, wall ms, peak RSS MB,
// answer bytes, and the start of the answer. Run after `npm run build`:
//   node bench/hostile.mjs [--only env,volumes] [--paths /defaulting,/resource-validation] [--entries N]
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const MAX = 3 * 1024 * 1024;

/** Where each list lives and what one empty entry is. */
export const LISTS = {
  env: { where: "container", entry: "{}" },
  envFrom: { where: "container", entry: "{}" },
  volumeMounts: { where: "container", entry: "{}" },
  ports: { where: "container", entry: "{}" },
  args: { where: "container", entry: '""' },
  volumes: { where: "pod", entry: "{}" },
  containers: { where: "pod", entry: "{}" },
  imagePullSecrets: { where: "pod", entry: "{}" },
};

/** A Service review whose one list has as many entries as fit under the 3 MiB limit (or `entries`). */
export function hostileBody(list, entries) {
  const { where, entry } = LISTS[list];
  const mk = (inner) => {
    const container = where === "container" ? `{"image":"ghcr.io/knative/helloworld-go","${list}":[${inner}]}` : `{"image":"ghcr.io/knative/helloworld-go"}`;
    const podExtra = where === "pod" ? (list === "containers" ? "" : `,"${list}":[${inner}]`) : "";
    const containers = list === "containers" ? `[${inner}]` : `[${container}]`;
    return (
      `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-${list}","kind":{"group":"serving.knative.dev","version":"v1","kind":"Service"},` +
      `"resource":{"group":"serving.knative.dev","version":"v1","resource":"services"},"operation":"CREATE","userInfo":{"username":"mallory"},` +
      `"object":{"apiVersion":"serving.knative.dev/v1","kind":"Service","metadata":{"name":"s","namespace":"default"},` +
      `"spec":{"template":{"spec":{"containers":${containers}${podExtra}}}}}}}`
    );
  };
  const overhead = Buffer.byteLength(mk(""));
  const n = entries ?? Math.floor((MAX - overhead + 1) / (entry.length + 1));
  return Buffer.from(mk(Array(n).fill(entry).join(",")));
}

async function child() {
  const [list, path, entries] = process.argv.slice(3);
  const { answerReview } = await import("../dist/admission/http.js");
  const { defaultDeps } = await import("../dist/cli/main.js");
  const { defaultSnapshot } = await import("../dist/config/snapshot.js");
  const deps = defaultDeps();
  const env = { config: defaultSnapshot() };
  const body = hostileBody(list, entries === "" ? undefined : Number(entries));
  const rssBefore = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const a = await answerReview(path, body, deps, env);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  process.send({
    list, path, bodyBytes: body.length, status: a.status, wallMs: Math.round(wall), cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    rssBeforeMB: Math.round(rssBefore / 2 ** 20), peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024), answerBytes: a.body.length,
    answer: a.body.slice(0, 300),
  });
}

async function main() {
  const { values } = parseArgs({ options: { only: { type: "string" }, paths: { type: "string" }, entries: { type: "string" }, "timeout-s": { type: "string", default: "120" } } });
  const lists = values.only ? values.only.split(",") : ["env", "volumeMounts", "ports", "volumes", "envFrom", "args", "containers", "imagePullSecrets"];
  const paths = values.paths ? values.paths.split(",") : ["/defaulting", "/resource-validation"];
  for (const list of lists) {
    for (const path of paths) {
      const res = await new Promise((resolve) => {
        const cp = fork(fileURLToPath(import.meta.url), ["--child", list, path, values.entries ?? ""], { execArgv: ["--max-old-space-size=4096"] });
        let got;
        const timer = setTimeout(() => cp.kill("SIGKILL"), Number(values["timeout-s"]) * 1000);
        cp.on("message", (m) => (got = m));
        cp.on("exit", (code, sig) => {
          clearTimeout(timer);
          resolve(got ?? { list, path, failed: sig ?? code });
        });
      });
      console.log(JSON.stringify(res));
    }
  }
}

if (process.argv[2] === "--child") await child();
else if (import.meta.url === `file://${process.argv[1]}`) await main();
