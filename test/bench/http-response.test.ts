// Framing of responses on the bench's keep-alive connections (bench/lib/http-response.mjs): Content-Length, as
// Fastify and the floor answer, and chunked, as Go's net/http answers once a body outgrows its buffer.
import { describe, expect, it } from "vitest";
import { frameResponse } from "../../bench/lib/http-response.mjs";

const b = (s: string) => Buffer.from(s, "latin1");

describe("frameResponse", () => {
  it("reads a Content-Length response and says how many bytes it took", () => {
    const head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n";
    const r = frameResponse(b(`${head}{"a":1}HTTP/1.1 200`));
    expect(r?.status).toBe(200);
    expect(r?.body.toString()).toBe('{"a":1}');
    expect(r?.length).toBe(head.length + 7);
  });

  it("reads a chunked response, joining its chunks", () => {
    const text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\na;ext=1\r\n:12345678}\r\n0\r\n\r\n";
    const r = frameResponse(b(`${text}next`));
    expect(r?.body.toString()).toBe('{"a":12345678}');
    expect(r?.length).toBe(text.length);
  });

  it("reads a chunked response with trailer fields", () => {
    const text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Trailer: 1\r\n\r\n";
    expect(frameResponse(b(text))?.length).toBe(text.length);
  });

  it.each([
    ["the head is incomplete", "HTTP/1.1 200 OK\r\nContent-Len"],
    ["the Content-Length body is incomplete", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345"],
    ["a chunk is incomplete", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n12345"],
    ["the last chunk has not come", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n"],
    ["the final empty line has not come", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r"],
  ])("waits for more bytes when %s", (_, text) => {
    expect(frameResponse(b(text))).toBeUndefined();
  });

  it("refuses a response framed neither way (the bench could not tell where it ends)", () => {
    expect(() => frameResponse(b("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbody"))).toThrow(/neither Content-Length nor chunked/);
  });

  it("refuses a chunk size that is not hexadecimal", () => {
    expect(() => frameResponse(b("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n"))).toThrow(/bad chunk size/);
  });
});
