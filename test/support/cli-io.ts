/** A CliIO that collects what a command writes, for tests that run commands in-process. */
import type { CliIO } from "../../src/cli/io.js";

export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` with an IO that records stdout and stderr (stdin is empty). */
export async function runCaptured(command: (io: CliIO) => Promise<number>): Promise<CapturedRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = { write: (t) => void (stdout += t), error: (t) => void (stderr += t), readStdin: async () => "" };
  const code = await command(io);
  return { code, stdout, stderr };
}
