import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCHMARKS_DOC, writeBenchmarksDoc } from './docs.ts';
import type { Figure, ScenarioResult } from './scenario.ts';

export const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');

const formatNumber = (n: number) => n.toLocaleString('en-US');

function formatValue({ value, unit }: Figure): string {
  const text = typeof value === 'boolean' ? (value ? 'yes' : 'NO') : typeof value === 'number' ? formatNumber(value) : `${formatNumber(value.min)}–${formatNumber(value.max)}`;
  return unit ? `${text} ${unit}` : text;
}

/** A two-column table of the figures, under the scenario's name, then its failures. */
export function formatReport(name: string, result: ScenarioResult): string {
  const failures = result.failures.map((f) => `  FAILED: ${f}`);
  if (result.figures.length === 0) return [`\n${name}: no figures`, ...failures].join('\n');
  const labelWidth = Math.max(...result.figures.map((f) => f.label.length));
  const valueWidth = Math.max(...result.figures.map((f) => formatValue(f).length));
  const rule = `${'─'.repeat(labelWidth + 2)}┼${'─'.repeat(valueWidth + 2)}`;
  const rows = result.figures.map((f) => ` ${f.label.padEnd(labelWidth)} │ ${formatValue(f).padStart(valueWidth)}`);
  return [`\n${name}`, rule, ...rows, rule, ...failures].join('\n');
}

/**
 * The figures as JSON, with the machine they were measured on, merged into the results file: a run
 * of some scenarios replaces theirs and keeps the others' (each says when it was measured).
 */
export async function writeResults(results: ReadonlyArray<{ name: string; result: ScenarioResult }>): Promise<string> {
  const measuredAt = new Date().toISOString();
  const machine = { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(totalmem() / 2 ** 30) };
  const report = {
    scenarios: {
      ...(await previousScenarios()),
      ...Object.fromEntries(
        results.map(({ name, result }) => [
          name,
          {
            measuredAt,
            machine,
            parameters: result.parameters,
            figures: Object.fromEntries(result.figures.map((f) => [f.key, f.value])),
            units: Object.fromEntries(result.figures.filter((f) => f.unit).map((f) => [f.key, f.unit])),
            labels: Object.fromEntries(result.figures.map((f) => [f.key, f.label])),
            ok: result.failures.length === 0,
            failures: result.failures,
          },
        ]),
      ),
    },
  };
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);
  await mkdir(dirname(BENCHMARKS_DOC), { recursive: true });
  await writeBenchmarksDoc(report.scenarios);
  return RESULTS_FILE;
}

/** The scenarios of the results file, or none when there is no file yet. */
async function previousScenarios(): Promise<Record<string, unknown>> {
  try {
    return (JSON.parse(await readFile(RESULTS_FILE, 'utf8')) as { scenarios?: Record<string, unknown> }).scenarios ?? {};
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
}
