// Rewrites the serve options table in README.md from src/cli/options.ts (run after `npm run build`).
import { readFileSync, writeFileSync } from "node:fs";
import { optionsTable } from "../dist/cli/options.js";

const path = new URL("../README.md", import.meta.url);
const lines = readFileSync(path, "utf8").split("\n");
const start = lines.findIndex((l) => l.startsWith("| flag | environment | default | meaning |"));
if (start === -1) throw new Error("README.md has no options table");
let end = start;
while (end < lines.length && lines[end].startsWith("|")) end++;
lines.splice(start, end - start, ...optionsTable().split("\n"));
writeFileSync(path, lines.join("\n"));
