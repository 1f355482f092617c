/**
 * The option tables of README.md and docs/cli.md, generated from the settings table: each sits between
 * `<!-- options: NAME -->` and `<!-- /options -->`, NAME one of DOCUMENTED_OPTIONS. `npm run docs:settings` rewrites
 * them (scripts/settings-docs.mjs); test/cli/settings-docs.test.ts fails when a file has drifted or a list has no
 * table.
 */
import { ADMIT_OPTIONS, CHECK_OPTIONS, FEATURES_OPTIONS, IMPACT_OPTIONS, TEST_OPTIONS, VERSION_OPTIONS } from "./command-options.js";
import { optionsTable, SERVE_OPTIONS, UPGRADE_CHECK_OPTIONS, type OptionSpec } from "./options.js";

/** Every command's options, by the name their table is marked with. */
export const DOCUMENTED_OPTIONS: Readonly<Record<string, readonly OptionSpec[]>> = {
  serve: SERVE_OPTIONS,
  "upgrade-check": UPGRADE_CHECK_OPTIONS,
  admit: ADMIT_OPTIONS,
  check: CHECK_OPTIONS,
  features: FEATURES_OPTIONS,
  "features impact": IMPACT_OPTIONS,
  test: TEST_OPTIONS,
  version: VERSION_OPTIONS,
};

/** The opening marker, the table's lines (none in a new block), the closing marker. */
const BLOCK = /(<!-- options: ([a-z -]+) -->\n)(?:\|.*\n)*(<!-- \/options -->)/g;

/** `text` with every marked table rewritten from its list; an unknown name is an error. */
export function regenerateOptionTables(text: string): string {
  return text.replace(BLOCK, (_m, open: string, name: string, close: string) => {
    const options = DOCUMENTED_OPTIONS[name];
    if (options === undefined) throw new Error(`<!-- options: ${name} -->: no such option list (${Object.keys(DOCUMENTED_OPTIONS).join(", ")})`);
    return `${open}${optionsTable(options)}\n${close}`;
  });
}

/** The names of the marked tables in `text`, in order. */
export function optionTableNames(text: string): string[] {
  return [...text.matchAll(BLOCK)].map((m) => m[2] as string);
}
