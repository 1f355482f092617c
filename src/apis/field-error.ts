/**
 * Port of knative.dev/pkg `apis.FieldError` (apis/field_error.go; the rules in
 * docs/knative-behavior.md#fielderror-rendering): an immutable tree of diagnostics whose `error()` rendering is
 * byte-identical to Go's `(*FieldError).Error()`.
 *
 * Go's `nil *FieldError` is `undefined` here; the free functions (`also`, `viaField`, …) carry Go's
 * nil-receiver semantics, the methods assume a receiver.
 *
 * Cost model: `viaField`/`viaIndex`/`viaKey` are O(depth of prefixes), not O(tree): the prefix is
 * recorded as a pending step and applied once, when paths are read or the error is rendered. Steps
 * are applied one at a time, exactly as Go applies them, because Go's `flatten` is not associative
 * (`ViaKey("k").ViaField("[a")` glues differently from `ViaField("[a", "[k]")`).
 */

import { goSprint } from "../go/fmt/print.js";
import { goQuote } from "../go/strconv/quote.js";
import { compareByteOrder } from "../go/strings/compare.js";

export type DiagnosticLevel = "Error" | "Warning";

/** Go's `apis.CurrentField`: the path of "the field being validated itself". */
export const CURRENT_FIELD = "";

export interface FieldErrorInit {
  readonly message?: string;
  readonly paths?: readonly string[];
  /** Defaults to "Error" (Go's zero value). */
  readonly level?: DiagnosticLevel;
  readonly details?: string;
}

/** Prefix steps, oldest first; each is the argument list of one Go `ViaField` call. */
type Steps = readonly (readonly string[])[];

const NO_STEPS: Steps = [];

/**
 * How many paths (over all leaves, before merging) an error is rendered from. Knative renders every one, so a
 * pod spec with a million invalid list entries gets a message of tens of megabytes after seconds of work (or
 * none at all: Knative's own webhook did not answer one in 200 s). Past this many, the leaves that follow in
 * Go's traversal order are counted, not rendered, and the text ends with MORE_ERRORS_LINE. No object the API
 * server can store comes near it (docs/adr/0009-bounded-work.md).
 */
export const MAX_RENDERED_ERROR_PATHS = 10_000;

/**
 * How many characters of paths an error is rendered from (1 MiB): Knative's re-prefixing quirks (validateEnvFrom)
 * make paths that grow with the list, so a few thousand entries would render hundreds of megabytes. Past it,
 * the remaining paths are counted like those past MAX_RENDERED_ERROR_PATHS.
 */
export const MAX_RENDERED_ERROR_PATH_CHARS = 1024 * 1024;

/**
 * The last line of an error (or the last warning) rendered from MAX_RENDERED_ERROR_PATHS paths of more: how many
 * paths were left out and, where a loop stopped checking the entries of a list (`withUncheckedEntries`), how
 * many entries it did not check.
 */
export function moreErrorsLine(omitted: number, unchecked = 0): string {
  const notChecked = `${unchecked} more list entries not checked`;
  if (unchecked === 0) return `too many errors: ${omitted} more not shown`;
  return omitted === 0 ? `too many errors: ${notChecked}` : `too many errors: ${omitted} more not shown, ${notChecked}`;
}

/**
 * Past this many paths held in one tree (its leaves' paths, a path-less leaf counting one), `also` drops what it
 * is given and only counts it: a loop over a million list entries then keeps a bounded tree, and the count
 * still reaches the rendered text (MAX_RENDERED_ERROR_PATHS). What is dropped comes after what is kept in Go's
 * traversal order, so below the bound nothing changes.
 */
export const MAX_HELD_ERROR_PATHS = MAX_RENDERED_ERROR_PATHS;

/** Counts paths while leaves are collected; past `limit`, leaves are only counted. */
interface Budget {
  left: number;
  charsLeft: number;
  omitted: number;
  unchecked: number;
}
const NO_PATHS: readonly string[] = [];
const NO_ERRORS: readonly FieldError[] = [];

export class FieldError {
  readonly message: string;
  readonly level: DiagnosticLevel;
  readonly details: string;

  // Own paths before `#pathSteps` are applied.
  #rawPaths: readonly string[] = NO_PATHS;
  #pathSteps: Steps = NO_STEPS;
  // Children before `#childSteps` are applied to each of them (after their own steps).
  #rawChildren: readonly FieldError[] = NO_ERRORS;
  // How many of `#rawChildren` are this node's: `also` appends in place to an array that no other node has
  // extended (Go's slice append), so accumulating n errors in a loop costs O(n), not O(n²).
  #childCount = 0;
  #childSteps: Steps = NO_STEPS;
  #paths: readonly string[] | undefined;
  #errors: readonly FieldError[] | undefined;
  // Paths held in this subtree at each level (a path-less leaf counts one), dropped ones included.
  #errWeight = 0;
  #warnWeight = 0;
  // Paths `also` dropped at this node (not in its children) once the tree held MAX_HELD_ERROR_PATHS.
  #droppedErr = 0;
  #droppedWarn = 0;
  // List entries a loop did not check once this tree was full: at this node, and in the whole subtree.
  #uncheckedHere = 0;
  #uncheckedTotal = 0;

  constructor(init: FieldErrorInit = {}) {
    this.message = init.message ?? "";
    this.level = init.level ?? "Error";
    this.details = init.details ?? "";
    if (init.paths !== undefined && init.paths.length > 0) this.#rawPaths = init.paths.slice();
    if (this.message !== "") {
      const w = this.#rawPaths.length === 0 ? 1 : this.#rawPaths.length;
      if (this.level === "Error") this.#errWeight = w;
      else this.#warnWeight = w;
    }
  }

  /** Internal constructor: shares arrays, never copies (callers hand over fresh or immutable ones). */
  static #make(
    message: string,
    level: DiagnosticLevel,
    details: string,
    rawPaths: readonly string[],
    pathSteps: Steps,
    rawChildren: readonly FieldError[],
    childSteps: Steps,
    childCount = rawChildren.length,
    tally?: FieldError,
  ): FieldError {
    const fe = new FieldError({ message, level, details });
    fe.#rawPaths = rawPaths;
    fe.#pathSteps = pathSteps;
    fe.#rawChildren = rawChildren;
    fe.#childCount = childCount;
    fe.#childSteps = childSteps;
    if (tally !== undefined) {
      // The same subtree as `tally`'s: its weights and drops carry over.
      fe.#errWeight = tally.#errWeight;
      fe.#warnWeight = tally.#warnWeight;
      fe.#droppedErr = tally.#droppedErr;
      fe.#droppedWarn = tally.#droppedWarn;
      fe.#uncheckedHere = tally.#uncheckedHere;
      fe.#uncheckedTotal = tally.#uncheckedTotal;
      return fe;
    }
    let u = 0;
    let e = 0;
    let w = 0;
    if (message !== "") {
      const own = rawPaths.length === 0 ? 1 : rawPaths.length;
      if (level === "Error") e = own;
      else w = own;
    }
    for (let i = 0; i < childCount; i++) {
      const c = rawChildren[i] as FieldError;
      e += c.#errWeight;
      w += c.#warnWeight;
      u += c.#uncheckedTotal;
    }
    fe.#errWeight = e;
    fe.#warnWeight = w;
    fe.#uncheckedTotal = u;
    return fe;
  }

  // This node's counters, with `droppedErr`/`droppedWarn` more dropped at it.
  #addDropped(droppedErr: number, droppedWarn: number, unchecked = 0): FieldError {
    this.#droppedErr += droppedErr;
    this.#droppedWarn += droppedWarn;
    this.#errWeight += droppedErr;
    this.#warnWeight += droppedWarn;
    this.#uncheckedHere += unchecked;
    this.#uncheckedTotal += unchecked;
    return this;
  }

  /** The paths this tree holds (a path-less leaf counting one), dropped ones included. */
  get heldPaths(): number {
    return this.#errWeight + this.#warnWeight;
  }

  /** Whether this tree holds MAX_HELD_ERROR_PATHS: `also` would only count what it is given. */
  get isFull(): boolean {
    return this.#errWeight + this.#warnWeight >= MAX_HELD_ERROR_PATHS;
  }

  /** This tree, saying that `n` more list entries were not checked (see `withUncheckedEntries`). */
  withUncheckedEntries(n: number): FieldError {
    if (n <= 0) return this;
    return FieldError.#make(this.message, this.level, this.details, this.#rawPaths, this.#pathSteps, this.#rawChildren, this.#childSteps, this.#childCount, this).#addDropped(0, 0, n);
  }

  /** This node's own paths, with every `via*` prefix applied (Go's `Paths`). */
  get paths(): readonly string[] {
    if (this.#paths === undefined) this.#paths = applyStepsToAll(this.#rawPaths, this.#pathSteps);
    return this.#paths;
  }

  /** Direct children (Go's unexported `errors`), with every `via*` prefix applied. */
  get errors(): readonly FieldError[] {
    if (this.#errors === undefined) {
      const steps = this.#childSteps;
      // A copy either way: `also` may append to the array this node shares.
      const own = this.#rawChildren.slice(0, this.#childCount);
      this.#errors = steps.length === 0 ? own : own.map((c) => c.#after(steps));
    }
    return this.#errors;
  }

  /** Go's `isEmpty`: no message, details, paths or children. */
  isEmpty(): boolean {
    return this.message === "" && this.details === "" && this.#rawPaths.length === 0 && this.#childCount === 0;
  }

  // `#rawChildren` as far as this node goes (a copy when a later `also` appended to the shared array).
  #ownChildren(): readonly FieldError[] {
    return this.#rawChildren.length === this.#childCount ? this.#rawChildren : this.#rawChildren.slice(0, this.#childCount);
  }

  /** Go's `ViaField`: prefix every path in the tree (path-less errors stay path-less). */
  viaField(...prefix: string[]): FieldError {
    const pathSteps = appendStep(this.#pathSteps, prefix);
    const childSteps =
      this.#childSteps === this.#pathSteps ? pathSteps : appendStep(this.#childSteps, prefix);
    return FieldError.#make(
      this.message,
      this.#containerSafeLevel(this.level),
      this.details,
      this.#rawPaths,
      pathSteps,
      this.#rawChildren,
      childSteps,
      this.#childCount,
      this,
    );
  }

  /** Go's `ViaIndex(i)` = `ViaField("[i]")`. */
  viaIndex(index: number): FieldError {
    return this.viaField(`[${index}]`);
  }

  /** Go's `ViaKey(k)` = `ViaField("[k]")` (a dotted key is split like any path: docs/knative-behavior.md#paths). */
  viaKey(key: string): FieldError {
    return this.viaField(`[${key}]`);
  }

  /** Go's `ViaFieldIndex(f, i)` = `ViaIndex(i).ViaField(f)` (two steps, as in Go). */
  viaFieldIndex(field: string, index: number): FieldError {
    return this.viaIndex(index).viaField(field);
  }

  /** Go's `ViaFieldKey(f, k)` = `ViaKey(k).ViaField(f)` (two steps, as in Go). */
  viaFieldKey(field: string, key: string): FieldError {
    return this.viaKey(key).viaField(field);
  }

  /** Go's `Also` with this as the receiver. */
  also(...errs: Array<FieldError | undefined>): FieldError | undefined {
    return FieldError.also(this, errs);
  }

  /** Go's `At`: the same tree with every node at `level`. */
  at(level: DiagnosticLevel): FieldError {
    const children = this.#childCount === 0 ? NO_ERRORS : this.#ownChildren().map((c) => c.at(level));
    return FieldError.#make(
      this.message,
      this.#containerSafeLevel(level),
      this.details,
      this.#rawPaths,
      this.#pathSteps,
      children,
      this.#childSteps,
    ).#addDropped(level === "Error" ? this.#droppedErr + this.#droppedWarn : 0, level === "Error" ? 0 : this.#droppedErr + this.#droppedWarn, this.#uncheckedHere);
  }

  /** Go's `Filter`: only the nodes at `level` (undefined when none is left). */
  filter(level: DiagnosticLevel): FieldError | undefined {
    return this.#filter(level, NO_STEPS);
  }

  // Filter of this node seen from a parent that applies `outer` after the node's own steps. Prefixes stay
  // pending steps (applied when paths are read or rendered), so filtering copies no paths.
  #filter(level: DiagnosticLevel, outer: Steps): FieldError | undefined {
    let kept: FieldError[] | undefined;
    if (this.#childCount > 0) {
      const childOuter = concatSteps(this.#childSteps, outer);
      for (let i = 0; i < this.#childCount; i++) {
        const f = (this.#rawChildren[i] as FieldError).#filter(level, childOuter);
        if (f !== undefined) (kept ??= []).push(f);
      }
    }
    const keepSelf = this.level === level && !this.#isBlankNode();
    const dropped = level === "Error" ? this.#droppedErr : this.#droppedWarn;
    const dropE = level === "Error" ? dropped : 0;
    const dropW = level === "Error" ? 0 : dropped;
    // Unchecked entries could have held errors: they belong to the errors' view.
    const unchecked = level === "Error" ? this.#uncheckedHere : 0;
    if (!keepSelf) {
      // Dropped errors of this level keep a node to be counted in.
      if (kept === undefined && dropped === 0 && unchecked === 0) return undefined;
      return FieldError.#make("", "Error", "", NO_PATHS, NO_STEPS, kept ?? NO_ERRORS, NO_STEPS).#addDropped(dropE, dropW, unchecked);
    }
    const pathSteps = concatSteps(this.#pathSteps, outer);
    return FieldError.#make(this.message, this.level, this.details, this.#rawPaths, pathSteps, kept ?? NO_ERRORS, NO_STEPS).#addDropped(dropE, dropW, unchecked);
  }

  /**
   * Go's `WrappedErrors()` (knative.dev/pkg apis/field_error.go): the merged, sorted leaves
   * (docs/knative-behavior.md#rendering-and-merging), each path-complete.
   */
  wrappedErrors(): FieldError[] {
    return mergeLeaves(this.#normalized(unbounded())).map((g) =>
      FieldError.#make(g.message, g.level, g.details, g.paths, NO_STEPS, NO_ERRORS, NO_STEPS),
    );
  }

  /**
   * `wrappedErrors().map((e) => e.error())` (what Knative turns into admission warnings), without building
   * the intermediate errors: a wrapped leaf renders as its one merged group.
   */
  wrappedErrorTexts(): string[] {
    const budget = bounded();
    const texts = mergeLeaves(this.#normalized(budget)).map(renderLeaf);
    if (budget.omitted > 0 || budget.unchecked > 0) texts.push(moreErrorsLine(budget.omitted, budget.unchecked));
    return texts;
  }

  /**
   * `filter(level)?.wrappedErrorTexts()`, without building the filtered tree: the pre-order walk of this tree that
   * only collects the leaves at `level` meets them in the order the filtered tree holds them, with the same paths.
   * Undefined where `filter(level)` is.
   */
  wrappedErrorTextsAt(level: DiagnosticLevel): string[] | undefined {
    const budget = bounded();
    const leaves = this.#normalizedAt(level, budget);
    if (leaves === undefined) return undefined;
    const texts = mergeLeaves(leaves).map(renderLeaf);
    if (budget.omitted > 0 || budget.unchecked > 0) texts.push(moreErrorsLine(budget.omitted, budget.unchecked));
    return texts;
  }

  /** `filter(level)?.error()`, without building the filtered tree (see `wrappedErrorTextsAt`). */
  errorAt(level: DiagnosticLevel): string | undefined {
    const budget = bounded();
    const leaves = this.#normalizedAt(level, budget);
    return leaves === undefined ? undefined : renderGroups(mergeLeaves(leaves), budget);
  }

  /** Go's `Error()`: merged leaves sorted by message, details, level; one `msg: paths[\ndetails]` each. */
  error(): string {
    const budget = bounded();
    return renderGroups(mergeLeaves(this.#normalized(budget)), budget);
  }

  toString(): string {
    return this.error();
  }


  /** A copy of this node with `details` replaced (Go code assigns `fe.Details = …`). */
  withDetails(details: string): FieldError {
    return FieldError.#make(
      this.message,
      this.level,
      details,
      this.#rawPaths,
      this.#pathSteps,
      this.#rawChildren,
      this.#childSteps,
      this.#childCount,
      this,
    );
  }

  /**
   * Go's `(*FieldError).Also` on a possibly-nil receiver: the receiver's node (or a blank
   * container) with the non-empty `errs` appended as children; undefined when the result would be
   * empty. With no argument, or a single empty one, the receiver itself is returned (even a non-nil
   * empty one, as in Go).
   */
  static also(base: FieldError | undefined, errs: ReadonlyArray<FieldError | undefined>): FieldError | undefined {
    if (errs.length === 0 || (errs.length === 1 && isEmptyError(errs[0]))) return base;
    let extra: FieldError[] | undefined;
    for (const e of errs) if (e !== undefined && !e.isEmpty()) (extra ??= []).push(e);
    if (extra === undefined) return isEmptyError(base) ? undefined : base;
    if (base === undefined || base.isEmpty()) {
      return FieldError.#make("", "Error", "", NO_PATHS, NO_STEPS, extra, NO_STEPS);
    }
    if (base.#errWeight + base.#warnWeight >= MAX_HELD_ERROR_PATHS) {
      // Bounded: the base as it is, the extras only counted (MAX_HELD_ERROR_PATHS).
      let droppedErr = 0;
      let droppedWarn = 0;
      let unchecked = 0;
      for (const e of extra) {
        droppedErr += e.#errWeight;
        droppedWarn += e.#warnWeight;
        unchecked += e.#uncheckedTotal;
      }
      return FieldError.#make(base.message, base.level, base.details, base.#rawPaths, base.#pathSteps, base.#rawChildren, base.#childSteps, base.#childCount, base).#addDropped(droppedErr, droppedWarn, unchecked);
    }
    if (base.#childCount === 0) {
      return FieldError.#make(base.message, base.level, base.details, base.#rawPaths, base.#pathSteps, extra, NO_STEPS).#addDropped(base.#droppedErr, base.#droppedWarn, base.#uncheckedHere);
    }
    const shared = base.#rawChildren;
    if (base.#childSteps.length === 0 && shared.length === base.#childCount && shared !== NO_ERRORS) {
      // Nobody has appended past the base's children: append in place; the base keeps seeing its own count.
      const grown = shared as FieldError[];
      const fe = FieldError.#make(base.message, base.level, base.details, base.#rawPaths, base.#pathSteps, grown, NO_STEPS, grown.length, base);
      for (const e of extra) {
        grown.push(e);
        fe.#errWeight += e.#errWeight;
        fe.#warnWeight += e.#warnWeight;
        fe.#uncheckedTotal += e.#uncheckedTotal;
      }
      fe.#childCount = grown.length;
      return fe;
    }
    const children = [...base.errors, ...extra];
    return FieldError.#make(base.message, base.level, base.details, base.#rawPaths, base.#pathSteps, children, NO_STEPS).#addDropped(base.#droppedErr, base.#droppedWarn, base.#uncheckedHere);
  }

  // This node seen from a parent that applies `outer` after the node's own steps.
  #after(outer: Steps): FieldError {
    return FieldError.#make(
      this.message,
      this.level,
      this.details,
      this.#rawPaths,
      concatSteps(this.#pathSteps, outer),
      this.#rawChildren,
      concatSteps(this.#childSteps, outer),
      this.#childCount,
      this,
    );
  }

  // No message, details or own paths (children aside).
  #isBlankNode(): boolean {
    return this.message === "" && this.details === "" && this.#rawPaths.length === 0;
  }

  // Go rebuilds blank nodes that gain children as `&FieldError{}`, i.e. at the zero level (Error).
  #containerSafeLevel(level: DiagnosticLevel): DiagnosticLevel {
    return this.#isBlankNode() && this.#childCount > 0 ? "Error" : level;
  }

  // Go's `normalized()`: every node with a message, pre-order, paths fully prefixed.
  // Past the budget, leaves are counted (one per path, or one when path-less), not collected. Iterative: a tree
  // can be as deep as the errors a caller nested.
  #normalized(budget: Budget): Leaf[] {
    return this.#normalizedAt(undefined, budget) as Leaf[];
  }

  /**
   * `filter(level)?.#normalized(budget)` in one walk of this tree (undefined where the filter gives undefined): the
   * filter keeps a node at `level` that is not blank, and keeps a node for the paths dropped at `level` (and, for
   * errors, the list entries not checked); its kept nodes keep their pre-order and their paths. Without a level,
   * `#normalized(budget)`.
   */
  #normalizedAt(level: DiagnosticLevel | undefined, budget: Budget): Leaf[] | undefined {
    const out: Leaf[] = [];
    let kept = level === undefined;
    // The stack of nodes to visit, each with the steps its parents apply after its own.
    const nodes: FieldError[] = [this];
    const outers: Steps[] = [NO_STEPS];
    for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
      const outer = outers.pop() as Steps;
      const dropped = level === undefined ? node.#droppedErr + node.#droppedWarn : level === "Error" ? node.#droppedErr : node.#droppedWarn;
      const unchecked = level === undefined || level === "Error" ? node.#uncheckedHere : 0;
      budget.omitted += dropped;
      budget.unchecked += unchecked;
      if (level === undefined) {
        node.#visitLeaf(outer, out, budget);
      } else {
        if (dropped > 0 || unchecked > 0) kept = true;
        if (node.level === level && !node.#isBlankNode()) {
          kept = true;
          node.#visitLeaf(outer, out, budget);
        }
      }
      if (node.#childCount === 0) continue;
      const childOuter = concatSteps(node.#childSteps, outer);
      for (let i = node.#childCount - 1; i >= 0; i--) {
        nodes.push(node.#rawChildren[i] as FieldError);
        outers.push(childOuter);
      }
    }
    return kept ? out : undefined;
  }

  // This node's leaf (none without a message), its paths prefixed by its steps and then `outer`, within the budget.
  #visitLeaf(outer: Steps, out: Leaf[], budget: Budget): void {
    if (this.message === "") return;
    let raw = this.#rawPaths;
    const weight = raw.length === 0 ? 1 : raw.length;
    if (budget.left < weight) {
      // The leaf's first paths while the budget lasts, then nothing more.
      const take = raw.length === 0 ? 0 : budget.left;
      budget.omitted += weight - take;
      budget.left = 0;
      if (take === 0) return;
      raw = raw.slice(0, take);
    } else {
      budget.left -= weight;
    }
    let paths = applyStepsToAll(raw, concatSteps(this.#pathSteps, outer));
    let chars = 0;
    for (let i = 0; i < paths.length; i++) {
      chars += (paths[i] as string).length;
      if (chars > budget.charsLeft) {
        // The paths that still fit, the rest counted; nothing more is rendered.
        budget.omitted += paths.length - i;
        budget.left = 0;
        budget.charsLeft = 0;
        if (i === 0 && paths.length > 0) return;
        paths = paths.slice(0, i);
        chars = 0;
        break;
      }
    }
    budget.charsLeft -= chars;
    out.push({ message: this.message, level: this.level, details: this.details, paths });
  }
}

/** Go's `Error()` text of merged groups: one `msg: paths[\ndetails]` each, then what the budget left out. */
function renderGroups(groups: readonly MergedLeaf[], budget: Budget): string {
  let out = "";
  for (let i = 0; i < groups.length; i++) {
    if (i > 0) out += "\n";
    out += renderLeaf(groups[i] as MergedLeaf);
  }
  if (budget.omitted > 0 || budget.unchecked > 0) out += (out === "" ? "" : "\n") + moreErrorsLine(budget.omitted, budget.unchecked);
  return out;
}

function bounded(): Budget {
  return { left: MAX_RENDERED_ERROR_PATHS, charsLeft: MAX_RENDERED_ERROR_PATH_CHARS, omitted: 0, unchecked: 0 };
}

function unbounded(): Budget {
  return { left: Infinity, charsLeft: Infinity, omitted: 0, unchecked: 0 };
}

/** The paths `errs` holds (a path-less leaf counting one), dropped ones included; 0 for undefined. */
export function heldPaths(errs: FieldError | undefined): number {
  return errs === undefined ? 0 : errs.heldPaths;
}

/**
 * Whether `errs` is full (MAX_HELD_ERROR_PATHS): a loop over list entries may then stop building errors for the
 * rest of the list (they would be dropped) and say how many entries it skipped with `withUncheckedEntries`.
 * Building an error costs a few hundred bytes; a million entries that each yield a few were gigabytes of garbage.
 */
export function isFull(errs: FieldError | undefined): boolean {
  return errs !== undefined && errs.isFull;
}

/** `errs` noting `n` list entries not checked (a no-op when `n` is 0; `errs` must be full to be defined). */
export function withUncheckedEntries(errs: FieldError | undefined, n: number): FieldError | undefined {
  return errs === undefined ? undefined : errs.withUncheckedEntries(n);
}

// ---------------------------------------------------------------------------------------------
// Go's nil-receiver semantics as free functions.

/** Go's `Also` with Go's nil-receiver semantics (see `FieldError.also`). */
export function also(base: FieldError | undefined, ...errs: Array<FieldError | undefined>): FieldError | undefined {
  return FieldError.also(base, errs);
}

export function viaField(err: FieldError | undefined, ...prefix: string[]): FieldError | undefined {
  return err?.viaField(...prefix);
}

export function viaIndex(err: FieldError | undefined, index: number): FieldError | undefined {
  return err?.viaIndex(index);
}

export function viaKey(err: FieldError | undefined, key: string): FieldError | undefined {
  return err?.viaKey(key);
}

export function viaFieldIndex(err: FieldError | undefined, field: string, index: number): FieldError | undefined {
  return err?.viaFieldIndex(field, index);
}

export function viaFieldKey(err: FieldError | undefined, field: string, key: string): FieldError | undefined {
  return err?.viaFieldKey(field, key);
}

export function at(err: FieldError | undefined, level: DiagnosticLevel): FieldError | undefined {
  return err?.at(level);
}

export function filter(err: FieldError | undefined, level: DiagnosticLevel): FieldError | undefined {
  return err?.filter(level);
}

/** Go's `Error()` on a possibly-nil error: "" for undefined. */
export function renderFieldError(err: FieldError | undefined): string {
  return err === undefined ? "" : err.error();
}

export function isEmptyError(err: FieldError | undefined): boolean {
  return err === undefined || err.isEmpty();
}

// ---------------------------------------------------------------------------------------------
// Constructors with Knative's exact messages (knative.dev/pkg apis/field_error.go: ErrMissingField, ErrInvalidValue, ...;
// docs/knative-behavior.md#messages).

export function errMissingField(...paths: string[]): FieldError {
  return leaf("missing field(s)", paths);
}

export function errDisallowedFields(...paths: string[]): FieldError {
  return leaf("must not set the field(s)", paths);
}

export function errDisallowedUpdateDeprecatedFields(...paths: string[]): FieldError {
  return leaf("must not update deprecated field(s)", paths);
}

/** `invalid value: <fmt.Sprint(value)>`; details joined with ", ". */
export function errInvalidValue(value: unknown, path: string, ...details: string[]): FieldError {
  return leaf("invalid value: " + goSprint(value), [path], details.join(", "));
}

/** Go: `ErrInvalidValue(value, CurrentField).ViaFieldIndex(field, index)` → path `field[index]`. */
export function errInvalidArrayValue(value: unknown, field: string, index: number): FieldError {
  return errInvalidValue(value, CURRENT_FIELD).viaFieldIndex(field, index);
}

export function errGeneric(message: string, ...paths: string[]): FieldError {
  return leaf(message, paths);
}

export function errMissingOneOf(...paths: string[]): FieldError {
  return leaf("expected exactly one, got neither", paths);
}

export function errMultipleOneOf(...paths: string[]): FieldError {
  return leaf("expected exactly one, got both", paths);
}

/** `invalid key name "<key>"` (Go `%q`); details joined with ", ". */
export function errInvalidKeyName(key: string, path: string, ...details: string[]): FieldError {
  return leaf("invalid key name " + goQuote(key), [path], details.join(", "));
}

/** `expected <lower> <= <value> <= <upper>` (all Go `%v`). */
export function errOutOfBoundsValue(value: unknown, lower: unknown, upper: unknown, path: string): FieldError {
  return leaf(`expected ${goSprint(lower)} <= ${goSprint(value)} <= ${goSprint(upper)}`, [path]);
}

function leaf(message: string, paths: readonly string[], details = ""): FieldError {
  return new FieldError({ message, paths, details });
}

// ---------------------------------------------------------------------------------------------
// Path flattening (Go's `flatten`), one `ViaField` step at a time.

function appendStep(steps: Steps, prefix: readonly string[]): Steps {
  return steps.length === 0 ? [prefix] : [...steps, prefix];
}

function concatSteps(inner: Steps, outer: Steps): Steps {
  if (outer.length === 0) return inner;
  if (inner.length === 0) return outer;
  return [...inner, ...outer];
}

function applyStepsToAll(paths: readonly string[], steps: Steps): readonly string[] {
  if (steps.length === 0 || paths.length === 0) return paths;
  return paths.map((p) => applySteps(p, steps));
}

/**
 * Go's repeated `flatten(append(prefix, path))`. Each step's result is kept as its pieces instead
 * of being joined and re-split: pieces never hold a dot and are never empty, so that is exact.
 */
export function applySteps(path: string, steps: Steps): string {
  // Nearly every piece (a part split at its dots) is a plain name or a whole index (`[0]`, `[key]`): then gluing
  // the pieces in one pass, outermost step first, is what the steps give one at a time.
  let out = "";
  for (let s = steps.length - 1; s >= 0; s--) {
    const step = steps[s] as readonly string[];
    for (let k = 0; k < step.length; k++) {
      const next = appendPieces(out, step[k] as string);
      if (next === undefined) return applyStepsPieceByPiece(path, steps);
      out = next;
    }
  }
  if (steps.length === 0) return path;
  return appendPieces(out, path) ?? applyStepsPieceByPiece(path, steps);
}

/**
 * `out` with the pieces of `part` (split at its dots, empty ones dropped) joined as pushPiece joins them; undefined
 * when a piece opens an index it does not close (`[a`): a piece glued onto such a one would start with `[` and end
 * with `]`, and glue again in a later step, which only the step-by-step flatten does.
 */
function appendPieces(out: string, part: string): string | undefined {
  let start = 0;
  for (;;) {
    const dot = part.indexOf(".", start);
    const end = dot < 0 ? part.length : dot;
    if (end > start) {
      const index = part.charCodeAt(start) === 0x5b; /* [ */
      if (index && part.charCodeAt(end - 1) !== 0x5d /* ] */) return undefined;
      const piece = start === 0 && end === part.length ? part : part.slice(start, end);
      out = out === "" ? piece : index ? out + piece : out + "." + piece;
    }
    if (dot < 0) return out;
    start = dot + 1;
  }
}

/** applySteps one step at a time (any parts). */
export function applyStepsPieceByPiece(path: string, steps: Steps): string {
  let pieces: string[] | undefined;
  for (const step of steps) {
    const next: string[] = [];
    for (const part of step) pushPieces(next, part);
    if (pieces === undefined) pushPieces(next, path);
    else for (const p of pieces) pushPiece(next, p);
    pieces = next;
  }
  return pieces === undefined ? path : pieces.join(".");
}

function pushPieces(out: string[], part: string): void {
  let start = 0;
  for (;;) {
    const dot = part.indexOf(".", start);
    const end = dot < 0 ? part.length : dot;
    if (end > start) pushPiece(out, start === 0 && end === part.length ? part : part.slice(start, end));
    if (dot < 0) return;
    start = dot + 1;
  }
}

// An index piece (`[…]`) glues onto whatever precedes it; anything else starts a new segment.
function pushPiece(out: string[], piece: string): void {
  const n = out.length;
  if (n > 0 && piece.charCodeAt(0) === 0x5b /* [ */ && piece.charCodeAt(piece.length - 1) === 0x5d /* ] */) {
    out[n - 1] += piece;
  } else {
    out.push(piece);
  }
}

// ---------------------------------------------------------------------------------------------
// Merging and ordering (Go's `merge`).

interface Leaf {
  readonly message: string;
  readonly level: DiagnosticLevel;
  readonly details: string;
  readonly paths: readonly string[];
}

/** A merged group: its paths sorted (in byte order), and deduplicated where leaves were merged. */
type MergedLeaf = Leaf;

/** One group of Go's `Error()`: `msg: paths[\ndetails]`. */
function renderLeaf(g: MergedLeaf): string {
  const head = g.message + ": " + (g.paths.length === 1 ? (g.paths[0] as string) : g.paths.join(", "));
  return g.details === "" ? head : head + "\n" + g.details;
}

interface Group {
  readonly first: Leaf;
  paths: readonly string[];
  /** Whether `paths` is this group's own copy (made on the first merge). */
  owned: boolean;
  /** The paths as a set, once the group holds more than SMALL_GROUP_PATHS (a short list is searched instead). */
  seen: Set<string> | undefined;
}

/** Up to this many paths, a group's paths are searched and sorted in place without a Set or sort's workspace. */
const SMALL_GROUP_PATHS = 16;

function mergeLeaves(leaves: readonly Leaf[]): MergedLeaf[] {
  if (leaves.length === 1) {
    // Nothing to merge with (a single leaf keeps even repeated paths, as in Go).
    const l = leaves[0] as Leaf;
    return [{ message: l.message, level: l.level, details: l.details, paths: sortedPaths(l.paths, false) }];
  }
  // Go keys its map with Sprintf("%s-%s-%s", level, message, details); a Map keeps hostile
  // strings (`__proto__`) inert, and the same key string reproduces Go's merging exactly.
  const groups = new Map<string, Group>();
  let last: Leaf | undefined;
  let lastGroup: Group | undefined;
  for (const l of leaves) {
    let g: Group | undefined;
    if (lastGroup !== undefined && last !== undefined && l.level === last.level && l.message === last.message && l.details === last.details) {
      // Same fields, same key: leaves of one kind tend to come in a row (the securityContext warnings).
      g = lastGroup;
    } else {
      const key = l.level + "-" + l.message + "-" + l.details;
      g = groups.get(key);
      if (g === undefined) {
        last = l;
        lastGroup = { first: l, paths: l.paths, owned: false, seen: undefined };
        groups.set(key, lastGroup);
        continue;
      }
    }
    last = l;
    lastGroup = g;
    // Go's mergePaths: existing paths kept as they are, new ones appended unless already present.
    if (!g.owned) {
      g.owned = true;
      g.paths = g.paths.slice();
    }
    const merged = g.paths as string[];
    for (const p of l.paths) {
      if (g.seen === undefined && merged.length >= SMALL_GROUP_PATHS) g.seen = new Set(merged);
      if (g.seen === undefined ? merged.includes(p) : g.seen.has(p)) continue;
      g.seen?.add(p);
      merged.push(p);
    }
  }
  const out: MergedLeaf[] = [];
  for (const g of groups.values()) {
    out.push({ message: g.first.message, level: g.first.level, details: g.first.details, paths: sortedPaths(g.paths, g.owned) });
  }
  if (out.length > 1) out.sort(compareLeaves);
  return out;
}

/**
 * `paths` in byte order: the array itself when it already is (paths are immutable once built), else a
 * sorted copy, or `paths` sorted in place when `owned`.
 */
function sortedPaths(paths: readonly string[], owned: boolean): readonly string[] {
  let sorted = true;
  for (let i = 1; i < paths.length; i++) {
    if (compareByteOrder(paths[i - 1] as string, paths[i] as string) > 0) {
      sorted = false;
      break;
    }
  }
  if (sorted) return paths;
  const out = owned ? (paths as string[]) : paths.slice();
  if (out.length > SMALL_GROUP_PATHS) return out.sort(compareByteOrder);
  // Insertion sort: stable like Array#sort, and without its workspace for the few paths a group usually holds.
  for (let i = 1; i < out.length; i++) {
    const p = out[i] as string;
    let j = i - 1;
    for (; j >= 0 && compareByteOrder(out[j] as string, p) > 0; j--) out[j + 1] = out[j] as string;
    out[j + 1] = p;
  }
  return out;
}

function compareLeaves(a: Leaf, b: Leaf): number {
  return (
    compareByteOrder(a.message, b.message) ||
    compareByteOrder(a.details, b.details) ||
    compareByteOrder(a.level, b.level)
  );
}
