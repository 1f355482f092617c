/** Scraping `GET /metrics` in tests: a free port for the listener, the text, and its samples parsed. */
import { get as httpGet, createServer } from "node:http";

/** A port that was free a moment ago (DUCKBILL_METRICS_PORT=0 means "no metrics listener"). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === "object" && addr !== null ? addr.port : 0));
    });
  });
}

/** The body of `GET http://127.0.0.1:<port><path>`. */
export function getText(port: number, path = "/metrics"): Promise<string> {
  return new Promise((resolve, reject) => {
    httpGet({ host: "127.0.0.1", port, path }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve(text));
      res.on("error", reject);
    }).on("error", reject);
  });
}

export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (label values without escapes, as the tests' values are). */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[l[1] as string] = l[2] as string;
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The samples named `name`. */
export function samplesOf(text: string, name: string): Sample[] {
  return parseSamples(text).filter((s) => s.name === name);
}
