/**
 * fast-check settings for the property tests: a fixed seed and a bounded number of runs, so CI is
 * reproducible and quick. PROPERTY_SEED / PROPERTY_RUNS override them for a longer local search; a
 * failure prints the seed and path to replay.
 */
import type { Parameters } from "fast-check";

const DEFAULT_SEED = 20_190_214; // the day Knative dropped spec.generation (knative/pkg#234)
const DEFAULT_RUNS = 400;

export function propertySettings<T>(): Parameters<T> {
  const seed = process.env.PROPERTY_SEED === undefined ? DEFAULT_SEED : Number(process.env.PROPERTY_SEED);
  const numRuns = process.env.PROPERTY_RUNS === undefined ? DEFAULT_RUNS : Number(process.env.PROPERTY_RUNS);
  return { seed, numRuns, endOnFailure: true };
}
