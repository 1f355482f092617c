// Turning a bench result into targets, a Markdown report and a regression verdict.

/** Knative 1.17's own webhook on this machine (issue [8]): saturation req/s with a Go load generator. */
export const KNATIVE_SATURATION = 3600;

const fmt = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? "–" : typeof x === "number" ? String(Math.round(x * 10 ** digits) / 10 ** digits) : String(x));

function at(rates, rate) {
  return rates?.find((r) => r.targetRate === rate);
}

/** Duckbill / floor and info / silent ratios from one run. */
export function ratios(r) {
  const d = r.duckbill?.saturation;
  const f = r.floor?.saturation;
  const s = r.duckbillSilent?.saturation;
  const d1000 = at(r.duckbill?.rates, 1000);
  const f1000 = at(r.floor?.rates, 1000);
  return {
    saturationVsFloor: d && f ? d.reqPerSec / f.reqPerSec : undefined,
    p99VsFloorAtSaturation: d && f ? d.latencyMs.p99 / f.latencyMs.p99 : undefined,
    p99VsFloorAt1000: d1000 && f1000 ? d1000.latencyMs.p99 / f1000.latencyMs.p99 : undefined,
    // How much saturation throughput info-level logging costs against LOG_LEVEL=silent.
    infoLoggingCost: d && s ? 1 - d.reqPerSec / s.reqPerSec : undefined,
    // The same in server CPU per request, which moves less than req/s when the machine is shared.
    infoLoggingCpuCost: d && s && cpuMicrosPerRequest(d) && cpuMicrosPerRequest(s) ? cpuMicrosPerRequest(d) / cpuMicrosPerRequest(s) - 1 : undefined,
  };
}

/** The issue's targets, each with the measured value and whether it is met (undefined when not measured). */
export function evaluateTargets(r) {
  const sat = r.duckbill?.saturation;
  const a1000 = at(r.duckbill?.rates, 1000);
  const q = ratios(r);
  const row = (name, value, limit, pass, unit = "") => ({ name, value, limit, unit, pass: value === undefined || value === null ? undefined : pass });
  return [
    row("saturation ≥ 1.5 × Knative (req/s)", sat?.reqPerSec, 1.5 * KNATIVE_SATURATION, sat?.reqPerSec >= 1.5 * KNATIVE_SATURATION),
    row("saturation ≥ 0.8 × floor (ratio)", q.saturationVsFloor, 0.8, q.saturationVsFloor >= 0.8),
    row("p50 at 1,000 req/s (ms)", a1000?.latencyMs.p50, 0.5, a1000?.latencyMs.p50 <= 0.5),
    row("p99 at 1,000 req/s (ms)", a1000?.latencyMs.p99, 3, a1000?.latencyMs.p99 <= 3),
    row("RSS at saturation (MB)", sat?.server.rssMaxMB, 100, sat?.server.rssMaxMB <= 100),
    row("ready after start, generating certificates (ms)", r.startup?.withCertificateGenerationMs, 300, r.startup?.withCertificateGenerationMs <= 300),
    row("ready after start, reusing certificates (ms)", r.startup?.medianRestartMs, 300, r.startup?.medianRestartMs <= 300),
    row("info logging cost vs silent (saturation throughput)", q.infoLoggingCost, 0.1, q.infoLoggingCost < 0.1),
    row("info logging cost vs silent (server CPU per request)", q.infoLoggingCpuCost, 0.1, q.infoLoggingCpuCost < 0.1),
    row("sanity: answers match the vectors (mismatches)", r.duckbill?.sanity?.mismatches, 0, r.duckbill?.sanity?.mismatches === 0),
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
    threshold,
    regressed: change < -threshold,
  };
}

function pct(x) {
  return x === undefined || x === null ? "–" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} %`;
}

/** Server CPU time per answered request, in µs: steadier than req/s when other work shares the machine. */
export function cpuMicrosPerRequest(p) {
  const rate = p.achievedRate ?? p.reqPerSec;
  return p.server?.cpuCores == null || !(rate > 0) ? undefined : Math.round((p.server.cpuCores / rate) * 1e6);
}

function loadRow(server, phaseName, p) {
  return `| ${server} | ${phaseName} | ${p.achievedRate ?? p.reqPerSec} | ${fmt(p.latencyMs.p50)} | ${fmt(p.latencyMs.p90)} | ${fmt(p.latencyMs.p99)} | ${fmt(p.latencyMs.max)} | ${p.errors} | ${fmt(p.server.cpuCores)} | ${fmt(cpuMicrosPerRequest(p), 0)} | ${fmt(p.server.rssMaxMB, 0)} | ${fmt(p.client.cpuCores)} | ${fmt(p.server.machineCpuCores - p.server.cpuCores - p.client.cpuCores)} |`;
}

/** The most CPU that processes other than the server and the bench used during any load phase, in cores. */
export function otherCpuMax(r) {
  const phases = [...(r.duckbill?.rates ?? []), r.duckbill?.saturation, r.duckbillSilent?.saturation, ...(r.duckbillWorkers?.rates ?? []), r.duckbillWorkers?.saturation, ...(r.floor?.rates ?? []), r.floor?.saturation];
  let max = 0;
  for (const p of phases) {
    if (p?.server?.machineCpuCores == null || p.server.cpuCores == null) continue;
    max = Math.max(max, p.server.machineCpuCores - p.server.cpuCores - p.client.cpuCores);
  }
  return Math.round(max * 100) / 100;
}

export function markdownReport(r) {
  const out = [];
  const m = r.machine;
  out.push(`## Duckbill bench${r.quick ? " (quick run: not a baseline)" : ""}`, "");
  out.push(`commit \`${r.commit.sha.slice(0, 12)}\`${r.commit.dirty ? " (with uncommitted changes)" : ""} · ${m.cores} × ${m.cpuModel} · Node ${m.node} · ${m.platform}`);
  out.push(`load average at start ${m.loadavgAtStart.join(" ")}, at end ${m.loadavgAtEnd?.join(" ") ?? "–"} (other work on the machine skews every figure) · ${r.elapsedSeconds} s`);
  const other = otherCpuMax(r);
  if (other > 0.15) out.push("", `**Warning: other processes used up to ${other} cores during the load phases; on a ${m.cores}-core machine that skews these figures. Rerun on a quiet machine before comparing.**`, "");
  const byPath = Object.entries(r.mix.byPath).map(([p, n]) => `${p} ${n}`).join(", ");
  out.push(`mix: ${r.mix.requests} requests from the conformance vectors (${byPath}), ${Math.round(r.mix.allowedShare * 100)} % allowed, ${r.mix.meanBodyBytes} bytes per body on average`, "");

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
  for (const p of r.duckbill?.rates ?? []) rows.push(loadRow("duckbill (info)", `${p.targetRate} req/s`, p));
  const satLabel = (x) => (x.saturationRounds?.length > 1 ? `saturation (best of ${x.saturationRounds.map((p) => p.reqPerSec).join(", ")})` : "saturation");
  if (r.duckbill?.saturation !== undefined) rows.push(loadRow("duckbill (info)", satLabel(r.duckbill), r.duckbill.saturation));
  if (r.duckbillSilent?.saturation !== undefined) rows.push(loadRow("duckbill (silent)", satLabel(r.duckbillSilent), r.duckbillSilent.saturation));
  const w = r.duckbillWorkers;
  for (const p of w?.rates ?? []) rows.push(loadRow(`duckbill (${w.workers} workers)`, `${p.targetRate} req/s`, p));
  if (w?.saturation !== undefined) rows.push(loadRow(`duckbill (${w.workers} workers)`, satLabel(w), w.saturation));
  for (const p of r.floor?.rates ?? []) rows.push(loadRow("floor", `${p.targetRate} req/s`, p));
  if (r.floor?.saturation !== undefined) rows.push(loadRow("floor", satLabel(r.floor), r.floor.saturation));
  if (rows.length > 0) {
    out.push(`### End to end: HTTPS/1.1 keep-alive, TLS 1.3, ${r.connections} connections, loopback`, "");
    out.push(
      "Fixed rates: evenly paced open-loop client; saturation: autocannon, closed loop (1 ms latency resolution), in rounds alternating between the servers, best round shown (RSS: the most of any round). Latencies in ms; CPU in cores (1 = one core busy); CPU µs/req is server CPU time per answered request; \"other CPU\" is what the rest of the machine used meanwhile (above ~0.1 the figures are skewed by other work).",
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
      const w1000 = at(r.duckbillWorkers.rates, 1000);
      const d1000 = at(r.duckbill?.rates, 1000);
      out.push(
        "",
        `${r.duckbillWorkers.workers} workers / 1 process: saturation ${fmt(wk.reqPerSec / d.reqPerSec)} (${wk.reqPerSec} vs ${d.reqPerSec} req/s), p99 at 1,000 req/s ${fmt(w1000?.latencyMs.p99)} vs ${fmt(d1000?.latencyMs.p99)} ms, RSS at saturation ${fmt(wk.server.rssMaxMB, 0)} vs ${fmt(d.server.rssMaxMB, 0)} MB (all processes)`,
      );
    }
    const s = r.duckbill?.sanity;
    if (s !== undefined) {
      out.push(
        `sanity: ${s.requests} mix requests over HTTPS trusting the generated ca.crt, ${s.mismatches} answers differ from their vectors${s.mismatches > 0 ? ` (${s.firstMismatches.join(", ")})` : ""}${s.knownFailures > 0 ? `, plus ${s.knownFailures} on the conformance known-failures list` : ""}`,
      );
    }
    out.push("");
  }

  out.push("### Targets", "", "| target | measured | limit | met |", "|---|---:|---:|:---:|");
  for (const t of r.targets) out.push(`| ${t.name} | ${fmt(t.value)} | ${fmt(t.limit)} | ${t.pass === undefined ? "–" : t.pass ? "yes" : "**no**"} |`);
  out.push("");

  if (r.profile !== undefined) {
    out.push(`### CPU profile of duckbill serve at saturation (${r.profile.samples} samples over ${r.profile.durationMs} ms, whole process life)`, "");
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
      `saturation ${c.reqPerSec} req/s against ${c.baselineReqPerSec} in ${c.baseline} (${pct(c.change)}; server CPU per request ${pct(c.cpuPerRequestChange)}; the floor moved ${pct(c.floorChange)}): ${c.regressed ? `**REGRESSION** (more than ${c.threshold * 100} % slower)` : `within ${c.threshold * 100} %`}`,
      "",
    );
  }
  return out.join("\n");
}
