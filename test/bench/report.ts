import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Figure, ScenarioResult } from './scenario.ts';

export const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');
/** The figures for readers: one section per scenario, each rewritten by its own run. */
export const BENCHMARKS_DOC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'benchmarks.md');

const formatNumber = (n: number) => n.toLocaleString('en-US');

function formatValue({ value, unit }: Figure): string {
  const text =
    typeof value === 'boolean'
      ? value
        ? 'yes'
        : 'NO'
      : typeof value === 'number'
        ? formatNumber(value)
        : `${formatNumber(value.min)}–${formatNumber(value.max)}`;
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

const machineOf = () => ({
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  memoryGb: Math.round(totalmem() / 2 ** 30),
  /** The machine is shared: its load when the run ended says how far absolute times can be trusted. */
  loadAverage: Math.round(loadavg()[0]! * 10) / 10,
});

/**
 * The figures as JSON, with the machine they were measured on, merged into the results file: a run
 * of some scenarios replaces theirs and keeps the others' (each says when it was measured).
 */
export async function writeResults(results: ReadonlyArray<{ name: string; result: ScenarioResult }>): Promise<string> {
  const measuredAt = new Date().toISOString();
  const machine = machineOf();
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

const DOC_HEADER = `# Benchmarks

Each section is written by its scenario's run of \`npm run bench -- --scenario <name>\` (between its
markers; do not edit it by hand), with the date and the machine it was measured on. The machine is a
shared 2-core one: absolute times move with its load, ratios measured in the same run much less.
`;

const markers = (name: string) => [`<!-- bench:${name}:begin -->`, `<!-- bench:${name}:end -->`] as const;

/** A scenario's section: its summary, when and where it ran, its parameters, then its figures as a table. */
export function benchmarkSection(name: string, summary: string, result: ScenarioResult, measuredAt: Date, machine = machineOf()): string {
  const [begin, end] = markers(name);
  const parameters = Object.entries(result.parameters)
    .map(([flag, value]) => `--${flag} ${value}`)
    .join(' ');
  const rows = result.figures.map((f) => `| ${f.label.replaceAll('|', '\\|')} | ${formatValue(f)} |`);
  const failures = result.failures.map((f) => `- **FAILED**: ${f}`);
  return [
    begin,
    `## ${name}`,
    '',
    `${summary}.`,
    '',
    `Measured ${measuredAt.toISOString().slice(0, 16).replace('T', ' ')} UTC with \`npm run bench -- --scenario ${name}${parameters ? ` ${parameters}` : ''}\` on ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, Node.js ${machine.node} (${machine.platform}), load average ${machine.loadAverage} at the end of the run.`,
    '',
    ...(result.details !== undefined ? [result.details] : rows.length > 0 ? ['| figure | value |', '|---|---|', ...rows] : ['No figures.']),
    ...(failures.length > 0 ? ['', ...failures] : []),
    end,
  ].join('\n');
}

/** Replaces the scenario's section in docs/benchmarks.md (made with its header when absent), or appends it; the other sections stay as they are. */
export async function writeBenchmarkSection(name: string, section: string): Promise<string> {
  const [begin, end] = markers(name);
  let doc: string;
  try {
    doc = await readFile(BENCHMARKS_DOC, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    doc = DOC_HEADER;
  }
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  const next = from >= 0 && to > from ? `${doc.slice(0, from)}${section}${doc.slice(to + end.length)}` : `${doc.trimEnd()}\n\n${section}\n`;
  await mkdir(dirname(BENCHMARKS_DOC), { recursive: true });
  await writeFile(BENCHMARKS_DOC, next);
  return BENCHMARKS_DOC;
}
