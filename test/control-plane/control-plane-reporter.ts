/**
 * Keeps the control-plane suite's summary (`control plane: S scenarios, O objects compared, D differences`) the last
 * line printed: vitest prints its own summary after the tests' output, so this reporter, listed after the default
 * one, prints the suite's line again once the run has ended.
 */
import type { UserConsoleLog } from "vitest";
import type { Reporter } from "vitest/node";

export default class ControlPlaneReporter implements Reporter {
  private summary: string | undefined;

  onUserConsoleLog(log: UserConsoleLog): void {
    for (const line of log.content.split("\n")) if (line.startsWith("control plane: ")) this.summary = line;
  }

  onTestRunEnd(): void {
    process.stdout.write(`${this.summary ?? "control plane: 0 scenarios, 0 objects compared, 0 differences (the suite did not finish: see above)"}\n`);
  }
}
