import { describe, expect, it } from 'vitest';
import { benchmarkSection } from '../../bench/report.ts';

const machine = { node: 'v20.0.0', platform: 'linux-x64', cpus: 2, cpuModel: 'CPU', memoryGb: 24, loadAverage: 1.5 };
const result = {
  parameters: { runs: 5 },
  figures: [
    { key: 'ms', label: 'import | median', value: 12.5, unit: 'ms' },
    { key: 'ok', label: 'within target', value: true },
    { key: 'kb', label: 'bundles', value: { min: 300, max: 1200 }, unit: 'KB' },
  ],
  failures: ['too slow'],
};

describe("docs/benchmarks.md's sections (test/bench/report.ts)", () => {
  it('are one marked section per scenario: summary, date, command, machine, then the figures as a table and any failure', () => {
    const section = benchmarkSection('cold-start', 'every bundle imported', result, new Date('2026-11-24T15:30:00Z'), machine);
    expect(section.split('\n')).toEqual([
      '<!-- bench:cold-start:begin -->',
      '## cold-start',
      '',
      'every bundle imported.',
      '',
      'Measured 2026-11-24 15:30 UTC with `npm run bench -- --scenario cold-start --runs 5` on 2 × CPU, 24 GB, Node.js v20.0.0 (linux-x64), load average 1.5 at the end of the run.',
      '',
      '| figure | value |',
      '|---|---|',
      '| import \\| median | 12.5 ms |',
      '| within target | yes |',
      '| bundles | 300–1,200 KB |',
      '',
      '- **FAILED**: too slow',
      '<!-- bench:cold-start:end -->',
    ]);
  });

  it("show a scenario's own Markdown in place of the two-column table when it gives one", () => {
    const section = benchmarkSection(
      'reads',
      'every list',
      { ...result, details: '| list | p95 |\n|---|---|\n| traces | 40 |' },
      new Date('2026-11-24T15:30:00Z'),
      machine,
    );
    expect(section.split('\n').slice(6)).toEqual([
      '',
      '| list | p95 |',
      '|---|---|',
      '| traces | 40 |',
      '',
      '- **FAILED**: too slow',
      '<!-- bench:reads:end -->',
    ]);
  });
});
