/** Types of bench/lib/side-by-side.mjs for its tests (the parts of a bench result it reads). */
import type { Phase } from "./rounds.mjs";

export interface ServerResult {
  release?: string;
  /** The fresh process's warm-up at saturation, before the rounds. */
  warmup?: Phase;
  saturation?: Phase;
  saturationRounds?: Phase[];
  rates?: Phase[];
  at1000Rounds?: Phase[];
}
export interface BenchResult {
  defaultWorkers?: string;
  duckbill?: ServerResult;
  duckbillDefault?: ServerResult;
  knative?: ServerResult;
  floor?: ServerResult;
}
export interface SideBySideRow {
  key: string;
  label: string;
  better: "higher" | "lower";
  duckbill?: number;
  duckbillDefault?: number;
  knative?: number;
  floor?: number;
  ratio?: number;
  ratioDefault?: number;
  roundRatios: number[];
}
export interface SideBySide {
  release?: string;
  rounds: number;
  defaultMeasuredApart: boolean;
  rows: SideBySideRow[];
  ratios: Record<string, number | undefined>;
}
export interface Target {
  name: string;
  value?: number;
  limit: number;
  pass?: boolean;
}
export declare function atRate(target: ServerResult | undefined, rate: number): Phase | undefined;
export declare function peakRssPerProcess(target: ServerResult | undefined): number | undefined;
export declare function ratio(a: unknown, b: unknown): number | undefined;
export declare function roundRatios(a: unknown, b: unknown): number[];
export declare function sideBySide(result: BenchResult): SideBySide | undefined;
export declare function knativeTargets(sbs: SideBySide | undefined): Target[];
