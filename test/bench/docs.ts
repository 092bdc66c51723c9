import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** docs/benchmarks.md: written by `npm run bench` from the results file, never by hand. */
export const BENCHMARKS_DOC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'benchmarks.md');

interface ScenarioRecord {
  measuredAt: string;
  machine: { node: string; platform: string; cpus: number; cpuModel: string; memoryGb: number };
  parameters: Record<string, number>;
  figures: Record<string, number | boolean | { min: number; max: number }>;
  units?: Record<string, string>;
  labels?: Record<string, string>;
  ok: boolean;
  failures: string[];
}

const formatNumber = (n: number) => n.toLocaleString('en-US');
const formatValue = (value: ScenarioRecord['figures'][string], unit?: string) => {
  const text = typeof value === 'boolean' ? (value ? 'yes' : 'NO') : typeof value === 'number' ? formatNumber(value) : `${formatNumber(value.min)}–${formatNumber(value.max)}`;
  return unit ? `${text} ${unit}` : text;
};

/** One section per scenario of the results file: when and where it ran, with what, and its figures. */
export function renderBenchmarksDoc(scenarios: Record<string, unknown>): string {
  const sections = Object.entries(scenarios as Record<string, ScenarioRecord>).map(([name, r]) => {
    const parameters = Object.entries(r.parameters).map(([k, v]) => `\`--${k} ${v}\``).join(' ');
    const rows = Object.entries(r.figures).map(([key, value]) => `| ${r.labels?.[key] ?? key} | ${formatValue(value, r.units?.[key])} |`);
    return [
      `## ${name}`,
      '',
      `Measured ${r.measuredAt.slice(0, 16).replace('T', ' ')} UTC on ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGb} GB, Node ${r.machine.node} (${r.machine.platform}), with ${parameters || 'the defaults'}. ${r.ok ? 'Passed.' : `FAILED: ${r.failures.join('; ')}`}`,
      '',
      '| Figure | Value |',
      '|---|---|',
      ...rows,
    ].join('\n');
  });
  return [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (`--scenario <name>` reruns one and keeps the others) from `test/bench/results/latest.json`; do not edit by hand.',
    '',
    ...sections.flatMap((s) => [s, '']),
  ].join('\n');
}

export async function writeBenchmarksDoc(scenarios: Record<string, unknown>): Promise<string> {
  await writeFile(BENCHMARKS_DOC, renderBenchmarksDoc(scenarios));
  return BENCHMARKS_DOC;
}
