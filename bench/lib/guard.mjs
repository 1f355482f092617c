// What every long bench script needs: a watchdog that ends a run stuck past `watchdogMs`, and SIGINT/SIGTERM
// handling, both running `cleanup` (stop child processes, remove temporary files) before exiting.

/** Installs the watchdog (exit 3) and the signal handlers (exit 130); `name` prefixes the watchdog's message. */
export function guardRun(name, watchdogMs, cleanup) {
  const watchdog = setTimeout(() => {
    console.error(`${name}: watchdog: still running after ${watchdogMs / 1000} s; stopping`);
    cleanup();
    process.exit(3);
  }, watchdogMs);
  watchdog.unref();
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      cleanup();
      process.exit(130);
    });
  }
}
