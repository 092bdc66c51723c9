import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundleModules, functionModules } from '../../support/bundles.ts';
import { BenchFailure, type Figure, type Scenario, type ScenarioResult } from '../scenario.ts';
import { median, round } from '../stats.ts';

const run = promisify(execFile);
const BASELINE_MODULE = 'test/bench/cold-start/baseline.ts';

/** What the functions need at load (configuration is read once, failing fast); no call leaves the process. */
const FUNCTION_ENV = {
  TABLE_NAME: 'cold-start',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'cold-start',
  AWS_SECRET_ACCESS_KEY: 'cold-start',
};

/** Loads one bundle in a new Node.js process; answers the milliseconds its import took (module evaluation included). */
const LOADER = `
const started = performance.now();
const module = await import(process.argv[1]);
const ms = performance.now() - started;
if (typeof module.handler !== 'function') throw new Error('no handler export');
process.stdout.write(String(ms));
`;

async function importMs(file: string): Promise<number> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', LOADER, pathToFileURL(file).href], {
    env: { PATH: process.env['PATH'], ...FUNCTION_ENV },
  });
  return Number(stdout);
}

interface Measured {
  module: string;
  kb: number;
  /** The median import time over the runs. */
  ms: number;
}

export const coldStartScenario: Scenario = {
  name: 'cold-start',
  summary: "every function's bundle (the CDK functions' esbuild settings) imported in a fresh Node.js process, against the same for a bare DynamoDB GetCommand function",
  flags: {
    runs: { default: 5, max: 50, description: 'fresh processes per bundle (the median counts)' },
  },
  run: async (flags, progress): Promise<ScenarioResult> => {
    const runs = flags['runs']!;
    const outdir = await mkdtemp(join(tmpdir(), 'aos-cold-start-'));
    try {
      const modules = [BASELINE_MODULE, ...functionModules()];
      progress(`bundling ${modules.length} modules`);
      const { metafile } = await bundleModules(modules, { outdir, write: true });
      const sizes = new Map(Object.entries(metafile.outputs).map(([file, output]) => [file.slice(file.lastIndexOf(outdir) + outdir.length + 1), output.bytes]));
      const measured: Measured[] = [];
      for (const module of modules) {
        const output = module.replace(/\.ts$/, '.js');
        const bytes = sizes.get(output);
        if (bytes === undefined) throw new BenchFailure(`no bundle for ${module}`);
        const times: number[] = [];
        // Interleaving would spread the machine's noise more evenly; one module at a time keeps its runs comparable.
        for (let i = 0; i < runs; i++) times.push(await importMs(join(outdir, output)));
        measured.push({ module: output, kb: bytes / 1024, ms: median(times) });
      }
      progress(`imported each bundle ${runs} times`);
      return { parameters: flags, figures: figuresOf(measured[0]!, measured.slice(1)), failures: [] };
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  },
};

function figuresOf(baseline: Measured, functions: Measured[]): Figure[] {
  const byTime = [...functions].sort((a, b) => a.ms - b.ms);
  const typical = median(functions.map((f) => f.ms));
  const largest = [...functions].sort((a, b) => b.kb - a.kb)[0]!;
  const within = functions.filter((f) => f.kb <= 300).length;
  return [
    { key: 'baselineKb', label: 'baseline (bare DynamoDB GetCommand function): bundle', value: round(baseline.kb), unit: 'KB' },
    { key: 'baselineImportMs', label: 'baseline: import in a fresh process, median', value: round(baseline.ms, 1), unit: 'ms' },
    { key: 'functions', label: 'functions', value: functions.length },
    { key: 'bundleKb', label: 'function bundles (min–max)', value: { min: round(Math.min(...functions.map((f) => f.kb))), max: round(Math.max(...functions.map((f) => f.kb))) }, unit: 'KB' },
    { key: 'bundleMedianKb', label: 'function bundles, median', value: round(median(functions.map((f) => f.kb))), unit: 'KB' },
    { key: 'withinTarget', label: 'functions ≤ 300 KB', value: within },
    { key: 'importMs', label: 'function import, fastest–slowest (each the median of its runs)', value: { min: round(byTime[0]!.ms, 1), max: round(byTime[byTime.length - 1]!.ms, 1) }, unit: 'ms' },
    { key: 'importMedianMs', label: 'function import, median over the functions', value: round(typical, 1), unit: 'ms' },
    { key: 'importOverBaseline', label: 'function import, median / baseline', value: round(typical / baseline.ms, 2) },
    { key: 'slowestImportMs', label: `slowest: ${byTime[byTime.length - 1]!.module}`, value: round(byTime[byTime.length - 1]!.ms, 1), unit: 'ms' },
    { key: 'largestImportMs', label: `largest (${round(largest.kb)} KB): ${largest.module}`, value: round(largest.ms, 1), unit: 'ms' },
  ];
}
