import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { connectionsOverShare } from "../cli/serve/workers.js";
import { ConnectionShed } from "./connection-shed.js";

/** An HTTP/1 request on `socket` and its answer, recording the headers set on it. */
function exchange(socket: object): { req: IncomingMessage; res: ServerResponse & { set: Record<string, unknown> } } {
  const set: Record<string, unknown> = {};
  const res = Object.assign(new EventEmitter(), { set, setHeader: (k: string, v: unknown) => (set[k] = v) });
  return { req: { socket } as unknown as IncomingMessage, res: res as unknown as ServerResponse & { set: Record<string, unknown> } };
}

describe("ConnectionShed", () => {
  it("closes the next answers' connections, one answer per connection, as many as asked", () => {
    const shed = new ConnectionShed(() => 0);
    const a = {};
    const b = {};
    const c = {};
    shed.request(2, 1000);
    const answers = [exchange(a), exchange(a), exchange(b), exchange(c)];
    for (const { req, res } of answers) shed.onRequest(req, res);
    expect(answers.map(({ res }) => res.set.Connection)).toEqual(["close", undefined, "close", undefined]);
    expect(shed.shed).toBe(2);
  });

  it("asks nothing after its window, and a new request replaces the last", () => {
    let now = 0;
    const shed = new ConnectionShed(() => now);
    shed.request(5, 1000);
    now = 1001;
    const late = exchange({});
    shed.onRequest(late.req, late.res);
    expect(late.res.set.Connection).toBeUndefined();
    shed.request(1, 1000);
    shed.request(0, 1000);
    const none = exchange({});
    shed.onRequest(none.req, none.res);
    expect(none.res.set.Connection).toBeUndefined();
  });

  it("ends an HTTP/2 session with GOAWAY once the answer is sent", () => {
    const shed = new ConnectionShed(() => 0);
    let closed = 0;
    const session = { close: () => closed++ };
    const { res } = exchange({});
    shed.request(1, 1000);
    shed.onRequest({ stream: { session } } as unknown as IncomingMessage, res);
    expect(closed).toBe(0);
    res.emit("finish");
    expect(closed).toBe(1);
    expect(res.set.Connection).toBeUndefined();
  });
});

describe("connectionsOverShare", () => {
  it.each([
    [8, 8, 2, 4],
    [6, 8, 2, 2],
    [5, 9, 2, 0],
    [0, 8, 2, 0],
    [7, 9, 3, 4],
  ])("a worker with %d of %d connections over %d workers ends %d", (open, total, workers, over) => {
    expect(connectionsOverShare(open, total, workers)).toBe(over);
  });
});
