/**
 * Go's goroutine stacks grow to 1 GB, so its recursive descent parsers and decoders go as deep as their input
 * (or their own depth limits) allow; a JS stack overflows near a few thousand frames. A port that recurses where
 * Go recurses is written as generator functions instead: `yield* call(f(args))` stands for Go's `f(args)`, and
 * `runRecursion` runs the calls on an explicit stack, so the depth of the input costs heap, not JS stack.
 */

/** A recursive call in progress: a generator that yields the calls it makes and returns its result. */
export type Recursion<T> = Generator<Recursion<unknown>, T, unknown>;

/** Within a Recursion: make the recursive call `r` and answer its result (`yield* call(r)`). */
export function* call<T>(r: Recursion<T>): Generator<Recursion<unknown>, T, unknown> {
  return (yield r) as T;
}

/**
 * Runs a recursive call to completion on an explicit stack. An exception thrown in a call unwinds to its
 * caller as it would in plain recursion (a caller's try/catch sees it).
 */
export function runRecursion<T>(root: Recursion<T>): T {
  const stack: Array<Recursion<unknown>> = [root];
  let sent: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    const top = stack[stack.length - 1] as Recursion<unknown>;
    let step: IteratorResult<Recursion<unknown>, unknown>;
    try {
      step = "error" in sent ? top.throw(sent.error) : top.next(sent.value);
    } catch (e) {
      stack.pop();
      if (stack.length === 0) throw e;
      sent = { error: e };
      continue;
    }
    if (step.done === true) {
      stack.pop();
      if (stack.length === 0) return step.value as T;
      sent = { value: step.value };
    } else {
      stack.push(step.value);
      sent = { value: undefined };
    }
  }
}
