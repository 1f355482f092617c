/**
 * Knative's own control plane on Duckbill (docs/e2e.md, "Knative's control plane"): two harness API servers, each
 * with Knative Serving's CRDs, ConfigMaps, cluster roles and webhook configurations from the release's modules
 * (install.ts) and Knative's controller of that release (processes.ts); Duckbill is the webhook of the first,
 * Knative's own webhook (reference/, server mode) of the second. Every scenario (scenarios.ts) runs against both;
 * after each step what kubectl printed, every Knative object of the scenario's namespace and the controller's log
 * lines about admission are compared.
 *
 * KNATIVE_VERSION chooses the release (1.24 by default, 1.23 or 1.17). The last line printed (control-plane-reporter.ts)
 * is `control plane: S scenarios, O objects compared, D differences`; a difference fails its scenario.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../scripts/reference-build.mjs";
import type { KubeApi } from "../../src/kube/json-api.js";
import { desiredWebhookConfiguration, knativeWebhookTargets } from "../../src/kube/webhook-config.js";
import { knativeRegistry } from "../../src/serving/kinds.js";
import { buildHarness, clientConfigs, REPO, run, startCluster, startDuckbill, waitFor, writeTokenKubeconfig, type Cluster, type Duckbill, type RunResult } from "../e2e/harness.js";
import {
  admissionLogLines,
  comparable,
  duckbillHistogram,
  histogramFigures,
  jsonDiff,
  measuredFigures,
  settle,
  type DurationHistogram,
  type RequestFigures,
  type Settled,
  uidNames,
} from "./compare.js";
import { knativeInstall, list, SYSTEM_NAMESPACE, type ControlPlaneRelease, type KnativeInstall, type Obj } from "./install.js";
import { adminApi, startController, startReferenceWebhook, type Controller, type ReferenceWebhook } from "./processes.js";
import { SCENARIOS, type Driver } from "./scenarios.js";

const RELEASE = (process.env.KNATIVE_VERSION ?? "1.24") as ControlPlaneRelease;
if (RELEASE !== "1.17" && RELEASE !== "1.23" && RELEASE !== "1.24") throw new Error(`KNATIVE_VERSION must be 1.24, 1.23 or 1.17, got ${String(process.env.KNATIVE_VERSION)}`);

/** How long the controller must write nothing for a step to have settled, and how long a step may take to settle. */
const QUIET_MS = Number(process.env.CONTROL_PLANE_QUIET_MS ?? 2500);
const SETTLE_TIMEOUT_MS = 90_000;

interface Side {
  readonly name: "duckbill" | "knative";
  readonly work: string;
  readonly cluster: Cluster;
  readonly api: KubeApi;
  readonly driver: Driver;
  controller?: Controller;
  logOffset: number;
}

let work = "";
let duckbill: Duckbill | undefined;
let reference: ReferenceWebhook | undefined;
const sides: Side[] = [];
const totals = { scenarios: 0, objects: 0, differences: 0 };
const figures: Array<{ scenario: string; duckbill: RequestFigures; knative: RequestFigures; writes: { duckbill: number; knative: number }; admissionErrorsLogged: { duckbill: number; knative: number }; exits: string }> = [];
const differences: Array<{ scenario: string; step: string; what: string; detail: unknown }> = [];
const timings: Record<string, number> = {};

function kubectlFor(bin: string, kubeconfig: string, cwd: string): Driver["kubectl"] {
  return (args, input) => run(bin, ["--kubeconfig", kubeconfig, ...args], { cwd, input, timeoutMs: 60_000 });
}

async function ok(d: Driver, args: readonly string[], input?: string): Promise<string> {
  const r = await d.kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}):\n${r.stderr}`);
  return r.stdout;
}

async function makeSide(name: Side["name"], clusterBinary: string, kubectlBin: string, install: KnativeInstall): Promise<Side> {
  const dir = join(work, name);
  await run("mkdir", ["-p", dir]);
  const cluster = await startCluster(clusterBinary, dir);
  const kubectl = kubectlFor(kubectlBin, cluster.kubeconfig, dir);
  const side: Side = {
    name,
    work: dir,
    cluster,
    api: adminApi(cluster.kubeconfig),
    logOffset: 0,
    driver: {
      release: RELEASE,
      kubectl,
      setConfig: async (cm, data) => {
        const r = await kubectl(["patch", "configmap", cm, "-n", SYSTEM_NAMESPACE, "--type=merge", "-p", JSON.stringify({ data })]);
        // The webhook's view of the ConfigMaps: the proxy's next list for Knative's, Duckbill's watch for Duckbill.
        if (name === "knative") await reference?.configsSynced();
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return r;
      },
    },
  };
  await ok(side.driver, ["apply", "-f", "-"], list(install.crds));
  await ok(side.driver, ["wait", "--for=condition=Established", "--timeout=60s", "crd", ...install.crds.map((c) => String((c.metadata as Obj).name))]);
  await ok(side.driver, ["apply", "-f", "-"], list(install.base));
  return side;
}

/** Duckbill as the webhook of cluster A: its ServiceAccount and RBAC (manifests/base/rbac), cluster mode, --webhook-url. */
async function startDuckbillSide(side: Side, install: KnativeInstall): Promise<Duckbill> {
  await ok(side.driver, ["apply", "-k", join(REPO, "manifests", "base", "rbac")]);
  await ok(side.driver, ["apply", "-f", "-"], list(install.webhooks));
  const token = (await ok(side.driver, ["create", "token", "duckbill-webhook", "-n", SYSTEM_NAMESPACE, "--duration=6h"])).trim();
  const kubeconfig = join(side.work, "duckbill.kubeconfig");
  await writeTokenKubeconfig((args) => ok(side.driver, args), kubeconfig, "duckbill-webhook", token);
  const started = await startDuckbill({ kubeconfig, workDir: side.work, host: "127.0.0.1", listenHost: "127.0.0.1", metrics: true });
  await waitFor("the three configurations point at Duckbill", 60_000, async () => {
    const configs = await clientConfigs((args) => ok(side.driver, args));
    return configs.every((cc) => cc.caBundle !== undefined && cc.url?.startsWith(started.url) === true) ? true : undefined;
  });
  return started;
}

/**
 * Knative's webhook as the webhook of cluster B. Knative's webhook reconciles its three configurations itself
 * (knative.dev/pkg defaulting.go: reconcileMutatingWebhook, validation/reconcile_config.go,
 * configmaps/configmaps.go); the reference has no cluster, so they are written here as those reconcilers write them,
 * pointing at the proxy. setup compares them with the ones Duckbill reconciled in cluster A.
 */
async function startKnativeSide(side: Side, install: KnativeInstall, binary: string): Promise<ReferenceWebhook> {
  const started = await startReferenceWebhook({ binary, kubeconfig: side.cluster.kubeconfig, workDir: side.work });
  const targets = knativeWebhookTargets(knativeRegistry().all());
  const configs = install.webhooks.map((w) => {
    const target = targets.find((t) => t.name === (w.metadata as Obj).name && t.kind === w.kind);
    if (target === undefined) throw new Error(`no webhook target for ${String(w.kind)} ${String((w.metadata as Obj).name)}`);
    return desiredWebhookConfiguration(w, target, { caBundle: started.caBundle, webhookUrl: started.url });
  });
  await ok(side.driver, ["apply", "-f", "-"], list(configs));
  return started;
}

/** The webhook entries of the three configurations, without what points them at one webhook or the other. */
async function webhookEntries(side: Side): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const kind of ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]) {
    const listed = (await side.api.request({ method: "GET", path: `/apis/admissionregistration.k8s.io/v1/${kind}` })) as { items: Obj[] };
    for (const c of listed.items) {
      for (const w of (c.webhooks ?? []) as Obj[]) {
        const { clientConfig: _clientConfig, ...rest } = w;
        out.push({ kind, config: (c.metadata as Obj).name, ...rest });
      }
    }
  }
  return out;
}

async function startControllers(): Promise<void> {
  const binary = await ensureBuilt(RELEASE, { target: "controller" });
  await Promise.all(
    sides.map(async (side) => {
      const token = (await ok(side.driver, ["create", "token", "controller", "-n", SYSTEM_NAMESPACE, "--duration=6h"])).trim();
      const kubeconfig = join(side.work, "controller.kubeconfig");
      await writeTokenKubeconfig((args) => ok(side.driver, args), kubeconfig, "controller", token);
      side.controller = await startController({ binary, kubeconfig, workDir: side.work, name: `controller-${side.name}` });
    }),
  );
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "duckbill-control-plane-"));
  let t = Date.now();
  const [harness, referenceBinary, install] = await Promise.all([buildHarness(), ensureBuilt(RELEASE), knativeInstall(RELEASE)]);
  timings.buildsMs = Date.now() - t;
  t = Date.now();
  const [a, b] = await Promise.all([makeSide("duckbill", harness.cluster, harness.kubectl, install), makeSide("knative", harness.cluster, harness.kubectl, install)]);
  sides.push(a, b);
  [duckbill, reference] = await Promise.all([startDuckbillSide(a, install), startKnativeSide(b, install, referenceBinary)]);
  timings.clustersMs = Date.now() - t;
  const [entriesA, entriesB] = await Promise.all([webhookEntries(a), webhookEntries(b)]);
  totals.objects += 3;
  if (!isDeepStrictEqual(entriesA, entriesB)) {
    differences.push({ scenario: "setup", step: "webhook configurations", what: "webhook entries", detail: jsonDiff(entriesA, entriesB) });
    totals.differences++;
  }
  t = Date.now();
  await startControllers();
  timings.controllersMs = Date.now() - t;
}, 60 * 60_000);

afterAll(async () => {
  await Promise.all(sides.map((s) => s.controller?.stop()));
  await Promise.all([duckbill?.stop(), reference?.stop()]);
  await Promise.all(sides.map((s) => s.cluster.stop()));
  for (const s of sides) s.api.close();
  const report = { release: RELEASE, timings, requests: figures, differences };
  writeFileSync(join(work, "report.json"), JSON.stringify(report, null, 2));
  for (const f of figures) {
    console.log(
      `admission requests: ${f.scenario}: duckbill ${f.duckbill.count} (mean ${f.duckbill.meanMs} ms, p95 <= ${f.duckbill.p95Ms} ms), knative ${f.knative.count} (mean ${f.knative.meanMs} ms, p95 ${f.knative.p95Ms} ms); objects written ${f.writes.duckbill}/${f.writes.knative}; controller's admission errors logged ${f.admissionErrorsLogged.duckbill}/${f.admissionErrorsLogged.knative}; kubectl exit statuses per step ${f.exits}`,
    );
  }
  for (const d of differences) console.log(`difference: ${d.scenario} / ${d.step}: ${d.what}: ${JSON.stringify(d.detail)}`);
  console.log(`control-plane timings: ${JSON.stringify(timings)}; work directory ${work}${process.env.CONTROL_PLANE_KEEP_WORKDIR === undefined ? " (removed)" : ""}`);
  if (process.env.CONTROL_PLANE_KEEP_WORKDIR === undefined) rmSync(work, { recursive: true, force: true });
  console.log(`control plane: ${totals.scenarios} scenarios, ${totals.objects} objects compared, ${totals.differences} differences`);
}, 120_000);

/** How many objects a step created or changed (their resourceVersion differs from the previous step's). */
function objectsWritten(before: Settled | undefined, after: Settled): number {
  let n = 0;
  for (const [key, o] of after.snapshot.objects) {
    const old = before?.snapshot.objects.get(key);
    if (old === undefined || (old.metadata as Obj).resourceVersion !== (o.metadata as Obj).resourceVersion) n++;
  }
  return n;
}

/** What kubectl printed, with the webhooks' addresses masked. */
function printed(r: RunResult): string {
  return `exit ${r.code}\n${r.stdout}${r.stderr}`.replace(/https:\/\/127\.0\.0\.1:\d+/g, "<webhook>");
}

describe(`Knative ${RELEASE}'s controller: Duckbill's cluster and Knative's webhook's cluster agree`, () => {
  SCENARIOS.forEach((scenario, i) => {
    it(scenario.name, async () => {
      const ns = `cp-${String(i + 1).padStart(2, "0")}`;
      const found: typeof differences = [];
      const differ = (step: string, what: string, detail: unknown): void => {
        found.push({ scenario: scenario.name, step, what, detail });
      };
      await Promise.all(sides.map((s) => s.driver.kubectl(["create", "namespace", ns])));
      const before: DurationHistogram = await duckbillHistogram(duckbill?.metricsPort ?? 0);
      const referenceBefore = reference?.requests.length ?? 0;
      const writes = { duckbill: 0, knative: 0 };
      const logged = { duckbill: 0, knative: 0 };
      const exits: string[] = [];
      let previous: Settled[] | undefined;
      for (const step of scenario.steps) {
        const results = await Promise.all(sides.map((s) => step.run(s.driver, ns)));
        exits.push(results.map((r) => String(r.code)).join("/"));
        const [outA, outB] = results.map(printed);
        if (outA !== outB) differ(step.name, "kubectl output", { duckbill: outA, knative: outB });
        const settled: Settled[] = await Promise.all(sides.map((s) => settle(s.api, ns, { quietMs: QUIET_MS, timeoutMs: SETTLE_TIMEOUT_MS })));
        const [sa, sb] = settled as [Settled, Settled];
        writes.duckbill += objectsWritten(previous?.[0], sa);
        writes.knative += objectsWritten(previous?.[1], sb);
        previous = settled;
        if (sa.settled !== sb.settled) differ(step.name, "settled", { duckbill: { settled: sa.settled, behind: sa.snapshot.behind }, knative: { settled: sb.settled, behind: sb.snapshot.behind } });
        const [uidsA, uidsB] = [uidNames(sa.snapshot), uidNames(sb.snapshot)];
        const keys = [...new Set([...sa.snapshot.objects.keys(), ...sb.snapshot.objects.keys()])].sort();
        for (const key of keys) {
          totals.objects++;
          const oa = sa.snapshot.objects.get(key);
          const ob = sb.snapshot.objects.get(key);
          if (oa === undefined || ob === undefined) {
            differ(step.name, key, { duckbill: oa === undefined ? "absent" : "present", knative: ob === undefined ? "absent" : "present" });
            continue;
          }
          const d = jsonDiff(comparable(oa, uidsA), comparable(ob, uidsB));
          if (d.length > 0) differ(step.name, key, d);
        }
        const logs = sides.map((s) => {
          const r = admissionLogLines(s.controller?.log ?? "", s.logOffset);
          s.logOffset = r.offset;
          return r.lines;
        });
        logged.duckbill += logs[0]?.length ?? 0;
        logged.knative += logs[1]?.length ?? 0;
        if (!isDeepStrictEqual(logs[0], logs[1])) differ(step.name, "controller log lines about admission", { duckbill: logs[0], knative: logs[1] });
      }
      figures.push({
        scenario: scenario.name,
        duckbill: histogramFigures(before, await duckbillHistogram(duckbill?.metricsPort ?? 0)),
        knative: measuredFigures((reference?.requests ?? []).slice(referenceBefore).map((r) => r.ms)),
        writes,
        admissionErrorsLogged: logged,
        exits: exits.join(" "),
      });
      totals.scenarios++;
      totals.differences += found.length;
      differences.push(...found);
      expect(found).toEqual([]);
    });
  });
});
