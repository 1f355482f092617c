// Reading one HTTP/1.1 response off a keep-alive connection's buffer: Content-Length framing (Fastify, the
// floor, Go's net/http for short answers) and chunked framing (what Go's net/http sends when a handler writes
// more than its 2,048-byte buffer before returning: Knative's longer AdmissionReviews).

const CRLF = Buffer.from("\r\n");
const CRLF2 = Buffer.from("\r\n\r\n");

/** A chunked body starting at `start`: { body, end } once its last chunk and trailer are in `buf`, else undefined. */
function readChunked(buf, start) {
  const parts = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(buf.toString("latin1", at, lineEnd).split(";", 1)[0].trim(), 16);
    if (!Number.isInteger(size) || size < 0) throw new Error(`bad chunk size line: ${JSON.stringify(buf.toString("latin1", at, lineEnd))}`);
    if (size === 0) {
      // The last chunk's line, then trailer fields (none expected), then an empty line.
      const trailerEnd = buf.indexOf(CRLF2, lineEnd);
      return trailerEnd === -1 ? undefined : { body: Buffer.concat(parts), end: trailerEnd + 4 };
    }
    const dataEnd = lineEnd + 2 + size;
    if (buf.length < dataEnd + 2) return undefined;
    parts.push(buf.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
}

/**
 * The first complete response in `buf`: { status, body, length } (length: the bytes it takes, head included), or
 * undefined while it is incomplete. Throws on framing the bench's servers do not use (neither header).
 */
export function frameResponse(buf) {
  const headEnd = buf.indexOf(CRLF2);
  if (headEnd === -1) return undefined;
  const head = buf.toString("latin1", 0, headEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length !== null) {
    const end = bodyStart + Number(length[1]);
    return buf.length < end ? undefined : { status, body: buf.subarray(bodyStart, end), length: end };
  }
  if (/\r\ntransfer-encoding:\s*chunked\s*(\r\n|$)/i.test(head)) {
    const chunked = readChunked(buf, bodyStart);
    return chunked === undefined ? undefined : { status, body: chunked.body, length: chunked.end };
  }
  throw new Error(`response with neither Content-Length nor chunked framing: ${head.split("\r\n")[0]}`);
}
