// Runs inside a controller's network namespace (test/control-plane/processes.ts: startController): listens on
// 127.0.0.1:<port>, where the controller's kubeconfig says the API server is, and carries each connection to the
// Unix socket on which the test process forwards it to the real API server. Creates <ready> once it listens (the
// controller starts after that) and exits when its parent, the controller, is gone.
import { writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";

const [port, socket, ready, controllerPid] = process.argv.slice(2);
// The shell that started this process execs the controller under its own pid (`$$`): passed in, since the controller
// may already be gone by the time this process reads its parent's pid.
const parent = controllerPid === undefined ? process.ppid : Number(controllerPid);
createServer((c) => {
  const upstream = connect(socket);
  c.pipe(upstream).pipe(c);
  const close = () => {
    c.destroy();
    upstream.destroy();
  };
  c.on("error", close);
  upstream.on("error", close);
}).listen(Number(port), "127.0.0.1", () => writeFileSync(ready, ""));
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();
