// Quiet handler logs and the SDK's Node 20 notice; the local runtime sets everything else it needs.
import '../support/env.ts';
import { relative } from 'node:path';
import { parseCommandLine, usage } from './cli.ts';
import { benchmarkSection, formatReport, writeBenchmarkSection, writeResults } from './report.ts';
import { BenchFailure, type Scenario, type ScenarioResult, UsageError } from './scenario.ts';
import { scenarios } from './scenarios.ts';

/**
 * `npm run bench [-- --scenario <name> --<flag> <n> ...]`: runs the selected scenarios (all by default)
 * one after another, prints each report, writes each as its section of docs/benchmarks.md and all of
 * them as JSON to test/bench/results/latest.json (unless `--no-record`).
 * Exits 1 when a scenario failed (e.g. an accepted span was not stored), 2 on a bad command line.
 */
async function main(): Promise<number> {
  const commandLine = parseCommandLine(process.argv.slice(2), scenarios);
  if (commandLine.help) {
    console.log(usage(scenarios));
    return 0;
  }
  const results: Array<{ name: string; result: ScenarioResult }> = [];
  for (const { scenario, parameters } of commandLine.selections) {
    const progress = (line: string) => console.error(`[${scenario.name}] ${line}`);
    progress(scenario.summary);
    const result = await runScenario(scenario, parameters, progress);
    console.log(formatReport(scenario.name, result));
    results.push({ name: scenario.name, result });
    if (!commandLine.record) continue;
    const doc = await writeBenchmarkSection(scenario.name, benchmarkSection(scenario.name, scenario.summary, result, new Date()));
    console.log(`section ${scenario.name} written to ${relative(process.cwd(), doc)}`);
  }
  if (commandLine.record) {
    const file = await writeResults(results);
    console.log(`\nwritten to ${relative(process.cwd(), file)}`);
  }
  const failed = results.filter((r) => r.result.failures.length > 0);
  if (failed.length > 0) console.error(`\nFAILED: ${failed.map((r) => r.name).join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

/** A scenario's result; a BenchFailure becomes a result with no figures, so the other scenarios still run. */
async function runScenario(scenario: Scenario, parameters: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  try {
    return await scenario.run(parameters, progress);
  } catch (err) {
    if (!(err instanceof BenchFailure)) throw err;
    return { parameters, figures: [], failures: [err.message] };
  }
}

// Exits explicitly: the HTTP and SDK clients' idle keep-alive sockets must not hold the process open.
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${usage(scenarios)}`);
      process.exit(2);
    }
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
