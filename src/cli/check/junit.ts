/**
 * JUnit XML as CI systems read it (GitLab, Jenkins, GitHub test reporters: the Ant JUnit schema's testsuites,
 * testsuite and testcase elements with failure, error, skipped and system-err), for `check -o junit` and
 * `test -o junit`.
 */

/** Why a case did not pass: `failure` is a wrong answer, `error` an input that could not be judged. */
export interface JunitProblem {
  readonly message: string;
  readonly type: string;
  /** The element's text: the full details. */
  readonly text?: string;
}

export interface JunitCase {
  readonly name: string;
  readonly classname: string;
  readonly failure?: JunitProblem;
  readonly error?: JunitProblem;
  /** The reason a case was skipped. */
  readonly skipped?: string;
  /** What the case wrote to stderr (warnings). */
  readonly systemErr?: string;
}

export interface JunitSuite {
  readonly name: string;
  readonly cases: readonly JunitCase[];
}

/** Text: the five escapes, and characters XML 1.0 does not allow replaced by U+FFFD. */
export function xmlEscape(s: string): string {
  return s
    // eslint-disable-next-line no-control-regex -- the control characters are what is being replaced
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** An attribute value: as text, with line breaks and tabs as references, which attribute normalization keeps. */
function xmlAttr(s: string): string {
  return xmlEscape(s).replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

function counts(cases: readonly JunitCase[]): string {
  const n = (p: (c: JunitCase) => boolean): number => cases.filter(p).length;
  return `tests="${cases.length}" failures="${n((c) => c.failure !== undefined)}" errors="${n((c) => c.error !== undefined)}" skipped="${n((c) => c.skipped !== undefined)}"`;
}

function problem(tag: string, p: JunitProblem): string {
  const open = `<${tag} message="${xmlAttr(p.message)}" type="${xmlAttr(p.type)}"`;
  return p.text === undefined || p.text === "" ? `${open}/>` : `${open}>${xmlEscape(p.text)}</${tag}>`;
}

function testcase(c: JunitCase): string {
  const inner: string[] = [];
  if (c.failure !== undefined) inner.push(problem("failure", c.failure));
  if (c.error !== undefined) inner.push(problem("error", c.error));
  if (c.skipped !== undefined) inner.push(`<skipped message="${xmlAttr(c.skipped)}"/>`);
  if (c.systemErr !== undefined && c.systemErr !== "") inner.push(`<system-err>${xmlEscape(c.systemErr)}</system-err>`);
  const open = `    <testcase name="${xmlAttr(c.name)}" classname="${xmlAttr(c.classname)}"`;
  return inner.length === 0 ? `${open}/>` : `${open}>\n${inner.map((l) => `      ${l}`).join("\n")}\n    </testcase>`;
}

/** The whole document, one testsuite per suite. */
export function junitXml(name: string, suites: readonly JunitSuite[]): string {
  const all = suites.flatMap((s) => s.cases);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${xmlAttr(name)}" ${counts(all)}>`];
  for (const s of suites) {
    lines.push(`  <testsuite name="${xmlAttr(s.name)}" ${counts(s.cases)}>`);
    for (const c of s.cases) lines.push(testcase(c));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return lines.join("\n") + "\n";
}
