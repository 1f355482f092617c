/**
 * The thread that parses configuration files (file-parser.ts): one request at a time, answered with the file's
 * content. Data goes back as entries, so that the caller rebuilds a map without a prototype (structured cloning
 * would give it Object.prototype).
 */
import { parentPort } from "node:worker_threads";
import { readConfigFile } from "../dir.js";
import type { ParseRequest, ParseResult } from "./file-parser.js";

parentPort?.on("message", ({ id, file, text }: ParseRequest) => {
  const content = readConfigFile(file, text);
  const result: ParseResult = content.kind === "data" ? { id, kind: "data", entries: Object.entries(content.data) } : { id, ...content };
  parentPort?.postMessage(result);
});
