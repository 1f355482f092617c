// Turning a bench result into targets, a Markdown report and a regression verdict.
import { atRate as at, knativeTargets, peakRssPerProcess } from "./side-by-side.mjs";

const fmt = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? "–" : typeof x === "number" ? String(Math.round(x * 10 ** digits) / 10 ** digits) : String(x));

/** Duckbill / floor and info / silent ratios from one run. */
export function ratios(r) {
  const d = r.duckbill?.saturation;
  const f = r.floor?.saturation;
  const s = r.duckbillSilent?.saturation;
  const d1000 = at(r.duckbill, 1000);
  const f1000 = at(r.floor, 1000);
  return {
    saturationVsFloor: d && f ? d.reqPerSec / f.reqPerSec : undefined,
    p99VsFloorAtSaturation: d && f ? d.latencyMs.p99 / f.latencyMs.p99 : undefined,
    p99VsFloorAt1000: d1000 && f1000 ? d1000.latencyMs.p99 / f1000.latencyMs.p99 : undefined,
    // How much saturation throughput info-level logging costs against DUCKBILL_LOG_LEVEL=silent.
    infoLoggingCost: d && s ? 1 - d.reqPerSec / s.reqPerSec : undefined,
    // The same in server CPU per request, which moves less than req/s when the machine is shared.
    infoLoggingCpuCost: d && s && cpuMicrosPerRequest(d) && cpuMicrosPerRequest(s) ? cpuMicrosPerRequest(d) / cpuMicrosPerRequest(s) - 1 : undefined,
  };
}

/**
 * The targets, each with the measured value and whether it is met (undefined when not measured): the
 * Knative-relative ones from the same run first (side-by-side.mjs), then the floor, latency, memory, startup and
 * logging ones, and that both servers' answers match the vectors.
 */
export function evaluateTargets(r) {
  const d1000 = at(r.duckbill, 1000);
  const q = ratios(r);
  const rss = [peakRssPerProcess(r.duckbill), peakRssPerProcess(r.duckbillDefault)].filter((x) => x !== undefined);
  const row = (name, value, limit, pass, unit = "") => ({ name, value, limit, unit, pass: value === undefined || value === null ? undefined : pass });
  return [
    ...knativeTargets(r.sideBySide),
    ...(r.sideBySideSecondNode === undefined ? [] : knativeTargets(r.sideBySideSecondNode).filter((t) => !t.name.includes("default settings")).map((t) => ({ ...t, name: `Node ${r.machine?.secondNode}: ${t.name}` }))),
    row("peak RSS per Duckbill process (MB)", rss.length === 0 ? undefined : Math.max(...rss), 100, Math.max(...rss) <= 100),
    row("saturation ≥ 0.8 × floor (ratio)", q.saturationVsFloor, 0.8, q.saturationVsFloor >= 0.8),
    row("p50 at 1,000 req/s (ms)", d1000?.latencyMs.p50, 0.5, d1000?.latencyMs.p50 <= 0.5),
    row("p99 at 1,000 req/s (ms)", d1000?.latencyMs.p99, 3, d1000?.latencyMs.p99 <= 3),
    row("ready after start, generating certificates (ms)", r.startup?.withCertificateGenerationMs, 300, r.startup?.withCertificateGenerationMs <= 300),
    row("ready after start, reusing certificates (ms)", r.startup?.medianRestartMs, 300, r.startup?.medianRestartMs <= 300),
    row("info logging cost vs silent (saturation throughput)", q.infoLoggingCost, 0.1, q.infoLoggingCost < 0.1),
    row("info logging cost vs silent (server CPU per request)", q.infoLoggingCpuCost, 0.1, q.infoLoggingCpuCost < 0.1),
    row("sanity: Duckbill's answers match the vectors (mismatches)", r.duckbill?.sanity?.mismatches, 0, r.duckbill?.sanity?.mismatches === 0),
    row("sanity: Knative's answers match the vectors (mismatches)", r.knative?.sanity?.mismatches, 0, r.knative?.sanity?.mismatches === 0),
  ];
}

/**
 * The regression gate: duckbill's saturation throughput (info logging) may not drop by more than `threshold`
 * against the baseline. The floor's change is shown so a slower or busier machine can be told from a slower
 * duckbill.
 */
export function compareWithBaseline(current, baseline, threshold, baselineName) {
  const cur = current.duckbill?.saturation?.reqPerSec;
  const base = baseline.duckbill?.saturation?.reqPerSec;
  if (typeof cur !== "number" || typeof base !== "number" || base <= 0) throw new Error(`--compare: ${baselineName} has no duckbill saturation figure`);
  const change = cur / base - 1;
  const floorCur = current.floor?.saturation?.reqPerSec;
  const floorBase = baseline.floor?.saturation?.reqPerSec;
  const cpuCur = current.duckbill?.saturation?.server?.cpuMicrosPerRequest;
  const cpuBase = baseline.duckbill?.saturation?.server?.cpuMicrosPerRequest;
  return {
    baseline: baselineName,
    baselineCommit: baseline.commit?.sha,
    baselineReqPerSec: base,
    reqPerSec: cur,
    change,
    floorChange: typeof floorCur === "number" && typeof floorBase === "number" && floorBase > 0 ? floorCur / floorBase - 1 : undefined,
    // Informational: CPU per request moves less than req/s when the machine is shared.
    cpuPerRequestChange: typeof cpuCur === "number" && typeof cpuBase === "number" && cpuBase > 0 ? cpuCur / cpuBase - 1 : undefined,
    // Informational: Duckbill / Knative saturation in each run (the machine's speed cancels out of it).
    vsKnative: current.sideBySide?.ratios?.saturation,
    baselineVsKnative: baseline.sideBySide?.ratios?.saturation,
    threshold,
    regressed: change < -threshold,
  };
}

function pct(x) {
  return x === undefined || x === null ? "–" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} %`;
}

/**
 * Server CPU time per answered request, in µs: steadier than req/s when other work shares the machine. The
 * phase's own figure when it has one (a summary of rounds carries the median of its rounds'), else CPU / rate.
 */
export function cpuMicrosPerRequest(p) {
  if (typeof p.server?.cpuMicrosPerRequest === "number") return p.server.cpuMicrosPerRequest;
  const rate = p.achievedRate ?? p.reqPerSec;
  return p.server?.cpuCores == null || !(rate > 0) ? undefined : Math.round((p.server.cpuCores / rate) * 1e6);
}

function loadRow(server, phaseName, p) {
  return `| ${server} | ${phaseName} | ${p.achievedRate ?? p.reqPerSec} | ${fmt(p.latencyMs.p50)} | ${fmt(p.latencyMs.p90)} | ${fmt(p.latencyMs.p99)} | ${fmt(p.latencyMs.max)} | ${p.errors} | ${fmt(p.server.cpuCores)} | ${fmt(cpuMicrosPerRequest(p), 0)} | ${fmt(p.server.rssMaxMB, 0)} | ${fmt(p.client.cpuCores)} | ${fmt(p.server.machineCpuCores - p.server.cpuCores - p.client.cpuCores)} |`;
}

/** The keys of a result's servers, in report order. */
const SERVERS = ["duckbill", "knative", "floor", "duckbillDefault", "duckbillSilent", "duckbillWorkers", "duckbillSecondNode", "floorSecondNode"];

/** The most CPU that processes other than the server and the bench used during any measured phase, in cores. */
export function otherCpuMax(r) {
  const phases = SERVERS.flatMap((k) => [...(r[k]?.rates ?? []), ...(r[k]?.saturationRounds ?? []), ...(r[k]?.at1000Rounds ?? [])]);
  let max = 0;
  for (const p of phases) {
    if (p?.server?.machineCpuCores == null || p.server.cpuCores == null) continue;
    max = Math.max(max, p.server.machineCpuCores - p.server.cpuCores - p.client.cpuCores);
  }
  return Math.round(max * 100) / 100;
}

/** How the report names a server of the run. */
function serverLabel(r, key) {
  switch (key) {
    case "duckbill":
      return `duckbill --workers 1 (info)`;
    case "knative":
      return `Knative ${r.knative?.release ?? r.knativeVersion} (info)`;
    case "floor":
      return "floor";
    case "duckbillDefault":
      return `duckbill, default settings (--workers ${r.defaultWorkers}, info)`;
    case "duckbillSilent":
      return "duckbill --workers 1 (silent)";
    case "duckbillSecondNode":
      return `duckbill --workers 1 on Node ${r.machine?.secondNode} (info)`;
    case "floorSecondNode":
      return `floor on Node ${r.machine?.secondNode}`;
    default:
      return `duckbill --workers ${r.duckbillWorkers?.workers} (info)`;
  }
}

/**
 * The report's lead: Duckbill / Knative ratios from this run, or why there are none. With `secondNode`, the table of
 * Duckbill and the floor on the run's second Node (--second-node) against the same Knative rounds.
 */
function sideBySideMarkdown(r, secondNode = false) {
  const out = [secondNode ? `### Duckbill / Knative with Duckbill and the floor on Node ${r.machine.secondNode} (same run)` : "### Duckbill / Knative (same run)", ""];
  const sbs = secondNode ? r.sideBySideSecondNode : r.sideBySide;
  if (sbs === undefined) {
    out.push(`Not measured in this run: ${r.knativeSkipped ?? "the knative part (or duckbill) was left out with --only"}.`, "");
    return out;
  }
  const k = r.knative;
  out.push(
    `Knative ${k.release}'s own webhook (knative.dev/serving ${k.serving ?? "?"}, built with ${k.go ?? "?"} from reference/) and \`duckbill serve --knative-version ${k.release}\`, info logging on both (as operators run them; ${r.duckbill?.logBytesPerRequest ?? "–"} vs ${k.logBytesPerRequest ?? "–"} log bytes per request), the same ${r.mix.requests}-request mix from the ${k.release} vectors over the same TLS 1.3 keep-alive clients (${r.connections} connections), in ${sbs.rounds} alternating rounds (Duckbill, Knative, floor, ...). Medians of the rounds; "per round" pairs each Duckbill round with the Knative round after it. Throughput: higher is better; CPU, latency, RSS: lower is better.`,
    "",
  );
  const apart = sbs.defaultMeasuredApart;
  const head = ["measure", "Duckbill `--workers 1`", ...(apart ? [`Duckbill default (\`--workers ${r.defaultWorkers}\`)`] : []), `Knative ${k.release}`, "**Duckbill / Knative**", ...(apart ? ["**default / Knative**"] : []), "per round", "floor"];
  out.push(`| ${head.join(" | ")} |`, `|---|${head.slice(1).map(() => "---:").join("|")}|`);
  for (const row of sbs.rows) {
    const digits = row.key.startsWith("p") ? 2 : 0;
    const cells = [
      row.label,
      fmt(row.duckbill, digits),
      ...(apart ? [fmt(row.duckbillDefault, digits)] : []),
      fmt(row.knative, digits),
      `**${fmt(row.ratio)}**`,
      ...(apart ? [`**${fmt(row.ratioDefault)}**`] : []),
      row.roundRatios.length === 0 ? "–" : row.roundRatios.map((x) => fmt(x)).join(", "),
      fmt(row.floor, digits),
    ];
    out.push(`| ${cells.join(" | ")} |`);
  }
  if (!apart && !secondNode) out.push("", `Duckbill's default settings are one process (\`--workers ${r.defaultWorkers}\`): the \`--workers 1\` column stands for both.`);
  out.push("");
  return out;
}

export function markdownReport(r) {
  const out = [];
  const m = r.machine;
  out.push(`## Duckbill bench${r.quick ? " (quick run: not a baseline)" : ""}`, "");
  out.push(`commit \`${r.commit.sha.slice(0, 12)}\`${r.commit.dirty ? " (with uncommitted changes)" : ""} · ${m.cores} × ${m.cpuModel} · Node ${m.node}${m.serverNode !== undefined && m.serverNode !== m.node ? ` (servers on Node ${m.serverNode})` : ""} · ${m.platform}`);
  out.push(`load average at start ${m.loadavgAtStart.join(" ")}, at end ${m.loadavgAtEnd?.join(" ") ?? "–"} (other work on the machine skews every figure) · ${r.elapsedSeconds} s`);
  const other = otherCpuMax(r);
  if (other > 0.15) out.push("", `**Warning: other processes used up to ${other} cores during the load phases; on a ${m.cores}-core machine that skews these figures. Rerun on a quiet machine before comparing.**`, "");
  const byPath = Object.entries(r.mix.byPath).map(([p, n]) => `${p} ${n}`).join(", ");
  out.push(`mix: ${r.mix.requests} requests from the Knative ${r.knativeVersion} conformance vectors (${byPath}), ${Math.round(r.mix.allowedShare * 100)} % allowed, ${r.mix.meanBodyBytes} bytes per body on average`, "");

  out.push(...sideBySideMarkdown(r));
  if (r.sideBySideSecondNode !== undefined) out.push(...sideBySideMarkdown({ ...r, duckbill: r.duckbillSecondNode }, true));

  if (r.inProcess !== undefined) {
    out.push("### In-process: one admission through answerReview (decode, admit, encode)", "");
    out.push("| category | vectors | µs/op (median) | p10–p90 of rounds | ops/s |", "|---|---:|---:|---:|---:|");
    const rows = [...Object.entries(r.inProcess.categories), ...Object.entries(r.inProcess.paths), ["e2e mix", r.inProcess.mix]];
    for (const [name, x] of rows) out.push(`| ${name} | ${x.vectors} | ${fmt(x.usPerOp)} | ${fmt(x.p10us)}–${fmt(x.p90us)} | ${x.opsPerSec} |`);
    out.push("");
  }

  if (r.startup !== undefined) {
    out.push("### Startup (standalone, process start → \"duckbill webhook serving\")", "");
    out.push(`generating certificates: ${fmt(r.startup.withCertificateGenerationMs, 0)} ms · reusing them: ${r.startup.restartMs.map((x) => fmt(x, 0)).join(", ")} ms (median ${fmt(r.startup.medianRestartMs, 0)} ms)`, "");
  }

  const rows = [];
  for (const k of SERVERS) {
    const x = r[k];
    if (x === undefined) continue;
    const name = serverLabel(r, k);
    for (const p of x.rates ?? []) rows.push(loadRow(name, p.rounds === undefined ? `${p.targetRate} req/s` : `${p.targetRate} req/s (median of ${p.rounds})`, p));
    if (x.saturation !== undefined) rows.push(loadRow(name, `saturation (median of ${x.saturationRounds.map((p) => p.reqPerSec).join(", ")})`, x.saturation));
  }
  if (rows.length > 0) {
    out.push(`### End to end: HTTPS/1.1 keep-alive, TLS 1.3, ${r.connections} connections, loopback`, "");
    out.push(
      `Fixed rates: evenly paced open-loop client; saturation: autocannon, closed loop (1 ms latency resolution). Saturation and 1,000 req/s run in ${r.phases.rounds} rounds alternating between the servers; the median of the rounds is shown (RSS: the most of any round; max: the largest of any round). Latencies in ms; CPU in cores (1 = one core busy) of the server's whole process tree; CPU µs/req is server CPU time per answered request; "other CPU" is what the rest of the machine used meanwhile (above ~0.1 the figures are skewed by other work).`,
      "",
    );
    out.push("| server | phase | req/s | p50 | p90 | p99 | max | errors | server CPU | CPU µs/req | server RSS MB | client CPU | other CPU |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    out.push(...rows, "");
    const q = ratios(r);
    out.push(
      `duckbill / floor: saturation ${fmt(q.saturationVsFloor)}, p99 at saturation ${fmt(q.p99VsFloorAtSaturation)}, p99 at 1,000 req/s ${fmt(q.p99VsFloorAt1000)} · info logging costs ${pct(q.infoLoggingCost)} of saturation throughput and ${pct(q.infoLoggingCpuCost)} of server CPU per request (${r.duckbill?.logBytesPerRequest ?? "–"} log bytes per request)`,
    );
    const wk = r.duckbillWorkers?.saturation;
    const d = r.duckbill?.saturation;
    if (wk !== undefined && d !== undefined) {
      const w1000 = at(r.duckbillWorkers, 1000);
      const d1000 = at(r.duckbill, 1000);
      out.push(
        "",
        `${r.duckbillWorkers.workers} workers / 1 process: saturation ${fmt(wk.reqPerSec / d.reqPerSec)} (${wk.reqPerSec} vs ${d.reqPerSec} req/s), p99 at 1,000 req/s ${fmt(w1000?.latencyMs.p99)} vs ${fmt(d1000?.latencyMs.p99)} ms, RSS at saturation ${fmt(wk.server.rssMaxMB, 0)} vs ${fmt(d.server.rssMaxMB, 0)} MB (all processes)`,
      );
    }
    for (const k of ["duckbill", "knative"]) {
      const s = r[k]?.sanity;
      if (s === undefined) continue;
      out.push(
        `sanity (${serverLabel(r, k)}): ${s.requests} mix requests over HTTPS (${s.tls ?? "–"}) trusting the generated ca.crt, ${s.mismatches} answers differ from their vectors${s.mismatches > 0 ? ` (${s.firstMismatches.join(", ")})` : ""}${s.knownFailures > 0 ? `, plus ${s.knownFailures} on the conformance known-failures list` : ""}`,
      );
    }
    out.push("");
  }

  out.push("### Targets", "", "| target | measured | limit | met |", "|---|---:|---:|:---:|");
  for (const t of r.targets) out.push(`| ${t.name} | ${fmt(t.value)} | ${fmt(t.limit)} | ${t.pass === undefined ? "–" : t.pass ? "yes" : "**no**"} |`);
  out.push("");

  if (r.profile !== undefined) {
    out.push(`### CPU profile of duckbill serve at saturation (${r.profile.samples} samples over ${r.profile.durationMs} ms, whole process life)`, "");
    if (r.profile.stages !== undefined) {
      out.push(`Main thread busy ${r.profile.busyUsPerRequest ?? "–"} µs per request over ${r.profile.requests} requests (under --cpu-prof, which adds its own cost), by stage of the admission path:`, "");
      out.push("| stage | share of busy time | µs per request |", "|---|---:|---:|");
      for (const st of r.profile.stages) out.push(`| ${st.name} | ${st.busyPercent} % | ${st.usPerRequest ?? "–"} |`);
      out.push("");
    }
    out.push("| self % | function (file:line) |", "|---:|---|");
    for (const f of r.profile.functions.slice(0, 20)) out.push(`| ${f.selfPercent} | ${f.name.replaceAll("|", "\\|")} |`);
    out.push("", "| self % | file |", "|---:|---|");
    for (const f of r.profile.files.slice(0, 15)) out.push(`| ${f.selfPercent} | ${f.name} |`);
    out.push("", "| inclusive % | function (file:line) |", "|---:|---|");
    for (const f of r.profile.inclusive.slice(0, 30)) out.push(`| ${f.selfPercent} | ${f.name.replaceAll("|", "\\|")} |`);
    out.push("", `profile: ${r.profile.file}`, "");
  }

  if (r.comparison !== undefined) {
    const c = r.comparison;
    out.push("### Regression gate", "");
    out.push(
      `saturation ${c.reqPerSec} req/s against ${c.baselineReqPerSec} in ${c.baseline} (${pct(c.change)}; server CPU per request ${pct(c.cpuPerRequestChange)}; the floor moved ${pct(c.floorChange)}; Duckbill / Knative ${fmt(c.vsKnative)} here, ${fmt(c.baselineVsKnative)} in the baseline): ${c.regressed ? `**REGRESSION** (more than ${c.threshold * 100} % slower)` : `within ${c.threshold * 100} %`}`,
      "",
    );
  }
  return out.join("\n");
}
