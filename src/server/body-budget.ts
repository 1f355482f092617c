/**
 * A bound on the request-body bytes the server holds at once, over all connections.
 *
 * Each body may be up to MAX_BODY_BYTES (3 MiB); without a bound, 300 connections that each send 3 MiB − 1 byte
 * and stall hold about 1 GB until the request timeout, and about 130 of them OOM-kill a 500 Mi pod. Go's
 * http.MaxBytesHandler in Knative's webhook bounds each body, not their sum.
 *
 * When a body needs bytes the budget does not have, the oldest bodies still arriving are evicted first (answered
 * 429 with Retry-After, their bytes released): the API server sends a review in one burst, so a body that has
 * been arriving for longest is the one least likely to be the API server's. When nothing can be evicted (every
 * held byte belongs to a body already read, being answered), the new body is the one refused.
 */
export interface BodyReservation {
  /** Asks for `n` more bytes; false when the budget cannot give them (the reader must refuse its request). */
  grow(n: number): boolean;
  /** The body is complete: it can no longer be evicted, only released. */
  complete(): void;
  /** Gives every byte back (idempotent). */
  release(): void;
}

interface Reader {
  held: number;
  arriving: boolean;
  released: boolean;
  readonly evict: () => void;
}

export class BodyBudget {
  #used = 0;
  #evictions = 0;
  #refusals = 0;
  // Insertion order is arrival order: the first entries are the oldest bodies.
  readonly #arriving = new Set<Reader>();

  constructor(readonly capacity: number) {}

  /** Bytes held now. */
  get used(): number {
    return this.#used;
  }

  /** Bodies evicted so far to make room for others. */
  get evictions(): number {
    return this.#evictions;
  }

  /** Bodies refused so far because nothing could be evicted. */
  get refusals(): number {
    return this.#refusals;
  }

  /**
   * A new body. `evict` is called (at most once) when the budget takes the reservation back for a newer body:
   * the reader must answer 429 and stop holding its bytes (they are already released when it is called).
   */
  open(evict: () => void): BodyReservation {
    const r: Reader = { held: 0, arriving: true, released: false, evict };
    this.#arriving.add(r);
    return {
      grow: (n) => this.#grow(r, n),
      complete: () => {
        r.arriving = false;
        this.#arriving.delete(r);
      },
      release: () => this.#release(r),
    };
  }

  #grow(r: Reader, n: number): boolean {
    if (r.released) return false;
    if (this.#used + n > this.capacity) this.#makeRoom(r, n);
    if (this.#used + n > this.capacity) {
      this.#refusals++;
      this.#release(r);
      return false;
    }
    r.held += n;
    this.#used += n;
    return true;
  }

  #makeRoom(asking: Reader, n: number): void {
    for (const victim of this.#arriving) {
      if (this.#used + n <= this.capacity) return;
      if (victim === asking) continue;
      this.#evictions++;
      this.#release(victim);
      victim.evict();
    }
  }

  #release(r: Reader): void {
    if (r.released) return;
    r.released = true;
    this.#used -= r.held;
    r.held = 0;
    this.#arriving.delete(r);
  }
}

/** `--max-buffered-bytes`' default: 64 MiB, about twenty 3 MiB bodies, or thousands of real reviews. */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
