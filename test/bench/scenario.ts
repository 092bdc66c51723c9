/** A numeric command-line flag of a scenario, e.g. `--requests 300`. */
export interface NumberFlag {
  default: number;
  description: string;
  /** Smallest accepted value (default 1). */
  min?: number;
  max?: number;
}

export interface Range {
  min: number;
  max: number;
}

/** One measured figure: a row of the printed table and a key of the JSON report. */
export interface Figure {
  key: string;
  label: string;
  value: number | boolean | Range;
  unit?: string;
}

export interface ScenarioResult {
  /** The flag values the scenario ran with. */
  parameters: Record<string, number>;
  figures: Figure[];
  /**
   * Markdown that stands for the figures in the scenario's section of docs/benchmarks.md, when a
   * two-column table cannot show them (the figures still go to the results file).
   */
  details?: string;
  /** What went wrong (e.g. accepted spans that were not stored); the run fails when any. */
  failures: string[];
}

export interface Scenario {
  name: string;
  summary: string;
  /** Flags by name without the leading `--`; shared names must mean the same to every scenario. */
  flags: Record<string, NumberFlag>;
  run(parameters: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult>;
}

/** A command line the bench does not understand. */
export class UsageError extends Error {}

/** The service did not do what the bench needs (refused requests, failed or lost messages): no figures. */
export class BenchFailure extends Error {}
