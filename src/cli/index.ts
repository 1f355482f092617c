import { main } from "./main.js";

main(process.argv.slice(2)).then(
  (code) => {
    // Let stdout drain before exiting (batch output can be large).
    process.stdout.write("", () => process.exit(code));
  },
  (err: unknown) => {
    console.error(`duckbill: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
