/**
 * `--help` and `-h` on every command of the built CLI (bin/duckbill, as users run it): plain text, no line over 100
 * columns, no Markdown table, options grouped, exit 0 with nothing on stderr. The README keeps its Markdown tables
 * (test/cli/readme.test.ts); docs/cli.md's tables of the other commands are generated from the same lists.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CHECK_OPTIONS, TEST_OPTIONS } from "../../src/cli/settings/command-options.js";
import { groupOptions, renderHelp, wrap } from "../../src/cli/help.js";
import { optionsTable, SERVE_OPTIONS, UPGRADE_CHECK_OPTIONS, type OptionSpec } from "../../src/cli/settings/options.js";
import { COMMANDS } from "../../src/cli/usage.js";
import { childEnv, ensureBuilt, ROOT } from "../support/build.js";

const bin = join(ROOT, "bin/duckbill");

beforeAll(ensureBuilt, 120_000);

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: childEnv(), input: "" });
}

/** Plain terminal text: within 100 columns, no Markdown table, no tabs. */
function expectPlainText(text: string): void {
  for (const line of text.split("\n")) {
    expect(line.length, line).toBeLessThanOrEqual(100);
    expect(line, "a Markdown table row").not.toMatch(/^\s*\|/);
    expect(line).not.toContain("\t");
  }
}

const COMMAND_NAMES = COMMANDS.map(([name]) => name);

describe("--help on every command", () => {
  it.each(COMMAND_NAMES.filter((c) => c !== "help"))("duckbill %s --help and -h print its help and exit 0", (command) => {
    const long = run([command, "--help"]);
    expect(long.stderr).toBe("");
    expect(long.status).toBe(0);
    expect(long.stdout).toMatch(new RegExp(`^Usage: duckbill ${command}\\b`));
    expectPlainText(long.stdout);
    const short = run([command, "-h"]);
    expect(short.status).toBe(0);
    expect(short.stdout).toBe(long.stdout);
    // `duckbill help <command>` is the same text.
    expect(run(["help", command]).stdout).toBe(long.stdout);
  });

  it("takes --help before the command's other arguments, even ones it would refuse", () => {
    const r = run(["serve", "--no-such-flag", "--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: duckbill serve/);
  });

  it("has a help for each features subcommand", () => {
    expect(run(["features", "explain", "--help"]).stdout).toMatch(/^Usage: duckbill features \[/);
    const impact = run(["features", "impact", "-h"]);
    expect(impact.status).toBe(0);
    expect(impact.stdout).toMatch(/^Usage: duckbill features impact --disable <flag>/);
    expectPlainText(impact.stdout);
  });

  it("duckbill help lists every command in plain text; without a command it goes to stderr with exit 2", () => {
    const r = run(["help"]);
    expect(r.status).toBe(0);
    expectPlainText(r.stdout);
    for (const c of COMMAND_NAMES) expect(r.stdout).toMatch(new RegExp(`^ {2}${c} +\\S`, "m"));
    expect(r.stdout).not.toContain("--port");
    const none = run([]);
    expect(none.status).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toBe(r.stdout);
    const unknown = run(["help", "nope"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe('duckbill help: unknown command "nope"; run "duckbill help"\n');
  });

  it("shows every serve setting once, grouped by concern, with its flag, variable and default", () => {
    const text = run(["serve", "--help"]).stdout;
    const headings = [...text.matchAll(/^(\S[^\n]*):$/gm)].map((m) => m[1]);
    expect(headings).toEqual(["Listening and TLS", "Cluster", "Configuration", "Limits and timeouts", "Metrics and logging"]);
    for (const o of SERVE_OPTIONS) {
      expect(text.match(new RegExp(`^ {6}--${o.flag}\\b`, "gm")), o.flag).toHaveLength(1);
      expect(text.replace(/\n +/g, " ")).toContain(`env ${o.env}`);
    }
    expect(text).toMatch(/^ {6}--port N +HTTPS port for the admission webhook \(env WEBHOOK_PORT, default 8443\)$/m);
    expect(text).toMatch(/^ {6}--http2 +serve HTTP\/2 \(with HTTP\/1\.1 fallback\) \(env DUCKBILL_HTTP2\)$/m);
    // Descriptions start in one column.
    expect(text.indexOf("HTTPS port") - text.lastIndexOf("\n", text.indexOf("HTTPS port")) - 1).toBe(30);
  });

  it("shows upgrade-check's settings as text, not the README's table", () => {
    const text = run(["upgrade-check", "--help"]).stdout;
    for (const o of UPGRADE_CHECK_OPTIONS) expect(text).toMatch(new RegExp(`--${o.flag}\\b`));
    expect(text).not.toContain(optionsTable(UPGRADE_CHECK_OPTIONS).split("\n")[0]);
  });

  it("rejects an unknown option with the command's name and a pointer to its help", () => {
    const r = run(["admit", "--nope"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`duckbill admit: unknown option --nope (an argument that starts with '-' goes after --, as in -- "--nope")\nRun "duckbill admit --help" for usage.\n`);
  });

  it.each([
    [["serve", "--kubconfig", "x"], 'duckbill serve: unknown option --kubconfig; did you mean --kubeconfig?'],
    [["check", "--namepace", "a", "-f", "x"], "duckbill check: unknown option --namepace; did you mean --namespace?"],
    [["admit", "--path"], "duckbill admit: --path needs a value"],
    [["serve", "--http2=yes"], "duckbill serve: --http2 is a switch and takes no value"],
    [["serve", "extra"], 'duckbill serve: unexpected argument "extra": this command takes options only'],
  ])("says what is wrong with %j in the command line's own words", (args, message) => {
    const r = run(args);
    expect(r.status).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(message);
  });
});

describe("the help renderer", () => {
  it("wraps words under an indent and never breaks a word", () => {
    expect(wrap("aaa bbb ccc ddd", 9, "  ", "")).toEqual(["aaa bbb", "  ccc ddd"]);
    expect(wrap("averyveryverylongword x", 10)).toEqual(["averyveryverylongword", "x"]);
  });

  it("places an option that a group does not name in a last group, so each shows once", () => {
    const extra: OptionSpec = { flag: "tls-new-thing", env: "X", default: "", description: "d" };
    const groups = groupOptions([...SERVE_OPTIONS, extra], [{ title: "A", flags: ["port", "host", "port"] }]);
    expect(groups.map((g) => [g.title, g.options?.length])).toEqual([
      ["A", 2],
      ["Other settings", SERVE_OPTIONS.length - 1],
    ]);
    expect(renderHelp({ usage: ["x"], groups })).toContain("--tls-new-thing VALUE");
  });
});

describe("docs/cli.md", () => {
  const doc = readFileSync(join(ROOT, "docs/cli.md"), "utf8");

  it("holds the option tables of check and test, generated from the lists the commands parse", () => {
    expect(doc).toContain(optionsTable(CHECK_OPTIONS));
    expect(doc).toContain(optionsTable(TEST_OPTIONS));
  });
});
