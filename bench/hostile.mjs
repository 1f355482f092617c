#!/usr/bin/env node
// Hostile bodies of issue [13]: one AdmissionReview just under the 3 MiB body limit whose pod spec has one list
// of ~1 M empty entries (env, volumeMounts, ports, volumes, ...), answered in process through answerReview, one
// child process per body so each peak RSS is its own. Prints, per body and path: CPU ms, wall ms, peak RSS MB,
// answer bytes, and the start of the answer. Run after `npm run build`:
//   node bench/hostile.mjs [--only env,volumes] [--paths /defaulting,/resource-validation] [--entries N]
// With --server, the bodies go over HTTPS to one `duckbill serve` (as `npm start` runs it) instead: per body the
// wall time, the server's peak RSS while answering it (VmHWM, reset before each body) and the latency of a
// normal review sent right after. With --server --stall N: N connections each send 3 MiB − 2 bytes of a 3 MiB − 1
// body and stall; prints the server's peak RSS and a normal review's latency while they stall, and RSS after.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { IMAGE_NODE_FLAGS } from "./lib/paths.mjs";

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
  const { values } = parseArgs({ options: { only: { type: "string" }, paths: { type: "string" }, entries: { type: "string" }, "timeout-s": { type: "string", default: "120" }, server: { type: "boolean", default: false }, stall: { type: "string" }, "node-flags": { type: "string", default: IMAGE_NODE_FLAGS } } });
  if (values.server) return serverMain(values);
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

const NORMAL = Buffer.from(
  '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"normal","kind":{"group":"serving.knative.dev","version":"v1","kind":"Service"},' +
    '"resource":{"group":"serving.knative.dev","version":"v1","resource":"services"},"operation":"CREATE","userInfo":{"username":"alice"},' +
    '"object":{"apiVersion":"serving.knative.dev/v1","kind":"Service","metadata":{"name":"s","namespace":"default"},"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}}}',
);

/** POSTs `body` over HTTPS; resolves with status, answer bytes and wall ms. */
export async function post(port, path, body, ca) {
  const https = await import("node:https");
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request({ host: "127.0.0.1", port, path, method: "POST", ca, servername: "localhost", headers: { "content-type": "application/json", "content-length": body.length } }, (res) => {
      let n = 0;
      let head = "";
      res.on("data", (c) => {
        if (head.length < 300) head += c.toString().slice(0, 300 - head.length);
        n += c.length;
      });
      res.on("end", () => resolve({ status: res.statusCode, bytes: n, ms: Math.round(performance.now() - t0), head }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function hwmMB(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

async function serverMain(values) {
  const { spawn } = await import("node:child_process");
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "duckbill-hostile-"));
  const port = 18000 + Math.floor(Math.random() * 1000);
  const bin = fileURLToPath(new URL("../bin/duckbill", import.meta.url));
  const cp = spawn(process.execPath, [...values["node-flags"].split(/\s+/).filter((f) => f !== ""), bin, "serve", "--workers", "1", "--port", String(port), "--metrics-port", "0", "--generated-cert-dir", dir, "--log-level", "warn"], { stdio: ["ignore", "inherit", "inherit"] });
  const ca = await (async () => {
    for (let i = 0; i < 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      try {
        const pem = readFileSync(join(dir, "ca.crt"));
        await post(port, "/defaulting", NORMAL, pem);
        return pem;
      } catch {
        // not up yet
      }
    }
    throw new Error("duckbill serve did not come up");
  })();
  const lists = values.only ? values.only.split(",") : ["env", "volumeMounts", "ports", "volumes"];
  const paths = values.paths ? values.paths.split(",") : ["/defaulting", "/resource-validation"];
  if (values.stall !== undefined) {
    try {
      await stallMain(Number(values.stall), port, ca, cp.pid);
    } finally {
      cp.kill("SIGKILL");
    }
    return;
  }
  try {
    for (const list of lists) {
      for (const path of paths) {
        writeFileSync(`/proc/${cp.pid}/clear_refs`, "5");
        const before = hwmMB(cp.pid);
        const body = hostileBody(list, values.entries ? Number(values.entries) : undefined);
        const r = await post(port, path, body, ca);
        const next = await post(port, "/defaulting", NORMAL, ca);
        console.log(JSON.stringify({ list, path, bodyBytes: body.length, status: r.status, wallMs: r.ms, answerBytes: r.bytes, rssBeforeMB: before, peakRssMB: hwmMB(cp.pid), nextStatus: next.status, nextMs: next.ms, answer: r.head.slice(0, 200) }));
      }
    }
  } finally {
    cp.kill("SIGKILL");
  }
}

async function stallMain(n, port, ca, pid) {
  const tls = await import("node:tls");
  const len = MAX - 1;
  const filler = Buffer.alloc(len - 1, 0x20);
  const sockets = [];
  let refused = 0;
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  for (let i = 0; i < n; i++) {
    const s = tls.connect({ host: "127.0.0.1", port, ca, servername: "localhost" });
    s.on("data", (d) => {
      if (d.toString().startsWith("HTTP/1.1 429")) refused++;
    });
    s.on("error", () => undefined);
    s.write(`POST /defaulting HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n`);
    s.write(filler);
    sockets.push(s);
  }
  // Let the bodies arrive, then time normal reviews while they stall.
  await new Promise((r) => setTimeout(r, 5000));
  const lat = [];
  for (let i = 0; i < 20; i++) lat.push((await post(port, "/defaulting", NORMAL, ca)).ms);
  const during = hwmMB(pid);
  for (const s of sockets) s.destroy();
  await new Promise((r) => setTimeout(r, 3000));
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
  console.log(JSON.stringify({ stalled: n, refused429: refused, peakRssMB: during, normalMsMax: Math.max(...lat), normalMsMedian: lat.sort((a, b) => a - b)[10], rssAfterCloseMB: Math.round(rss) }));
}

if (process.argv[2] === "--child") await child();
else if (import.meta.url === `file://${process.argv[1]}`) await main();
