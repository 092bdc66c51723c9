import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundleModules, functionModules, PROJECT_ROOT } from '../../support/bundles.ts';
import { BenchFailure, type Figure, type Scenario, type ScenarioResult } from '../scenario.ts';
import { median, round } from '../stats.ts';

const run = promisify(execFile);
const BASELINE_MODULE = 'test/bench/cold-start/baseline.ts';
/** Bundling 64 functions takes minutes, many more on a loaded machine. */
const SYNTH_TIMEOUT_MS = 30 * 60_000;
/** The source map comment aside, the CDK's and the tests' builds of a function are the same bytes. */
const MAX_DRIFT_KB = 0.5;
/** The target: a function's median import takes at most this many times the bare DynamoDB function's, in the same run. */
const MAX_IMPORT_OVER_BASELINE = 2;
/**
 * A checkout of an earlier commit, its dependencies installed (e.g. `git worktree add <dir> <commit> &&
 * npm ci` there): its functions are synthesized and imported in the same run, one after each of ours,
 * so a change's effect on cold starts is measured under the same conditions. A path, so an environment
 * variable rather than one of the bench's numeric flags.
 */
const BEFORE_TREE = process.env['BENCH_COLD_START_BEFORE'];

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

/** A function's bundle as `cdk synth` left it: its handler module (ServiceFunction's description) and its asset file. */
interface SynthesizedBundle {
  module: string;
  file: string;
}

/** Every Lambda function of the synthesized templates, with the bundle CDK built for it. */
async function synthesizedBundles(cdkOut: string): Promise<SynthesizedBundle[]> {
  const bundles: SynthesizedBundle[] = [];
  for (const name of (await readdir(cdkOut)).filter((f) => f.endsWith('.template.json'))) {
    const template = JSON.parse(await readFile(join(cdkOut, name), 'utf8')) as {
      Resources: Record<string, { Type: string; Metadata?: Record<string, unknown>; Properties: { Description?: string } }>;
    };
    for (const resource of Object.values(template.Resources)) {
      const asset = resource.Metadata?.['aws:asset:path'];
      if (resource.Type !== 'AWS::Lambda::Function' || typeof asset !== 'string' || !resource.Properties.Description?.startsWith('functions/')) continue;
      bundles.push({ module: resource.Properties.Description, file: join(cdkOut, asset, 'index.mjs') });
    }
  }
  return bundles;
}

async function synth(tree: string, cdkOut: string): Promise<string> {
  await run('npx', ['cdk', 'synth', '--quiet', '--no-notices', '--output', cdkOut], { cwd: tree, timeout: SYNTH_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  return cdkOut;
}

/** The earlier checkout's commit and its synthesized bundles. */
async function treeBefore(tree: string, cdkOut: string, progress: (message: string) => void) {
  const { stdout } = await run('git', ['log', '-1', '--format=%h (%cs)'], { cwd: tree });
  const commit = stdout.trim();
  progress(`cdk synth of ${commit} in ${tree}`);
  const bundles = await synthesizedBundles(await synth(tree, cdkOut));
  if (bundles.length === 0) throw new BenchFailure(`cdk synth in ${tree} built no function bundle`);
  return { commit, bundles };
}

interface Measured {
  module: string;
  kb: number;
  /** The median import time over the runs. */
  ms: number;
}

async function measure(module: string, file: string, runs: number): Promise<Measured> {
  const times: number[] = [];
  // One module at a time keeps its runs comparable; the machine's noise lands on whole modules.
  for (let i = 0; i < runs; i++) times.push(await importMs(file));
  return { module, kb: (await stat(file)).size / 1024, ms: median(times) };
}

export const coldStartScenario: Scenario = {
  name: 'cold-start',
  summary:
    "`cdk synth`, then every function's synthesized bundle imported in fresh Node.js processes (the init a cold start pays for the code), against the same for a bare DynamoDB GetCommand function; target: the median function within 2× that baseline. Bundle sizes are reported, not capped. With `BENCH_COLD_START_BEFORE=<a checkout of an earlier commit, dependencies installed>`, that commit's functions are synthesized and imported in the same run, each after one of ours",
  flags: {
    runs: { default: 5, max: 50, description: 'fresh processes per bundle (the median counts)' },
  },
  run: async (flags, progress): Promise<ScenarioResult> => {
    const runs = flags['runs']!;
    const work = await mkdtemp(join(tmpdir(), 'aos-cold-start-'));
    try {
      progress('cdk synth (bundles every function with its own settings)');
      const synthesized = await synthesizedBundles(await synth(PROJECT_ROOT, join(work, 'cdk.out')));
      const expected = functionModules();
      const missing = expected.filter((m) => !synthesized.some((b) => b.module === m));
      if (missing.length > 0) throw new BenchFailure(`cdk synth built no bundle for ${missing.join(', ')}`);

      progress("bundling the baseline and the bundle tests' builds");
      const built = await bundleModules([BASELINE_MODULE, ...expected], { outdir: join(work, 'esbuild'), write: true });
      const builtKb = new Map(
        Object.entries(built.metafile.outputs).map(([file, output]) => [file.slice(file.indexOf('/esbuild/') + '/esbuild/'.length), output.bytes / 1024]),
      );
      const baseline = await measure(BASELINE_MODULE, join(work, 'esbuild', BASELINE_MODULE.replace(/\.ts$/, '.js')), runs);

      const before = BEFORE_TREE ? await treeBefore(BEFORE_TREE, join(work, 'before.out'), progress) : undefined;

      progress(`importing ${synthesized.length} synthesized bundles ${runs} times each${before ? `, each followed by one of ${before.commit}'s` : ''}`);
      const functions: Measured[] = [];
      const functionsBefore: Measured[] = [];
      for (let i = 0; i < Math.max(synthesized.length, before?.bundles.length ?? 0); i++) {
        const bundle = synthesized[i];
        if (bundle) functions.push(await measure(bundle.module, bundle.file, runs));
        const earlier = before?.bundles[i];
        if (earlier) functionsBefore.push(await measure(earlier.module, earlier.file, runs));
      }
      const drift = Math.max(...functions.map((f) => Math.abs(f.kb - (builtKb.get(f.module.replace(/\.ts$/, '.js')) ?? Infinity))));
      // The bundle tests stand for the synthesized bundles only while both are built alike.
      const failures = drift > MAX_DRIFT_KB ? [`a bundle test build is ${round(drift, 1)} KB apart from the synthesized bundle`] : [];
      const ratio = median(functions.map((f) => f.ms)) / baseline.ms;
      if (ratio > MAX_IMPORT_OVER_BASELINE)
        failures.push(`the median function's import takes ${round(ratio, 2)}× the baseline's (target ≤ ${MAX_IMPORT_OVER_BASELINE}×)`);
      const figures = figuresOf(baseline, functions, drift);
      if (before) figures.push(...figuresBefore(before.commit, baseline, functionsBefore, functions));
      return { parameters: flags, figures, failures };
    } finally {
      await rm(work, { recursive: true, force: true, maxRetries: 5 });
    }
  },
};

function figuresOf(baseline: Measured, functions: Measured[], drift: number): Figure[] {
  const byTime = [...functions].sort((a, b) => a.ms - b.ms);
  const typical = median(functions.map((f) => f.ms));
  const largest = [...functions].sort((a, b) => b.kb - a.kb)[0]!;
  return [
    { key: 'baselineKb', label: 'baseline (bare DynamoDB GetCommand function): bundle', value: round(baseline.kb), unit: 'KB' },
    { key: 'baselineImportMs', label: 'baseline: import in a fresh process, median', value: round(baseline.ms, 1), unit: 'ms' },
    { key: 'functions', label: 'functions synthesized', value: functions.length },
    {
      key: 'bundleKb',
      label: 'synthesized bundles (min–max)',
      value: { min: round(Math.min(...functions.map((f) => f.kb))), max: round(Math.max(...functions.map((f) => f.kb))) },
      unit: 'KB',
    },
    { key: 'bundleMedianKb', label: 'synthesized bundles, median', value: round(median(functions.map((f) => f.kb))), unit: 'KB' },
    { key: 'testBuildDriftKb', label: 'largest difference, bundle test build vs synthesized', value: round(drift, 1), unit: 'KB' },
    {
      key: 'importMs',
      label: 'function import, fastest–slowest (each the median of its runs)',
      value: { min: round(byTime[0]!.ms, 1), max: round(byTime[byTime.length - 1]!.ms, 1) },
      unit: 'ms',
    },
    { key: 'importMedianMs', label: 'function import, median over the functions', value: round(typical, 1), unit: 'ms' },
    { key: 'importOverBaseline', label: 'function import, median / baseline', value: round(typical / baseline.ms, 2) },
    {
      key: 'withinTarget',
      label: `median function import within ${MAX_IMPORT_OVER_BASELINE}× the baseline`,
      value: typical / baseline.ms <= MAX_IMPORT_OVER_BASELINE,
    },
    { key: 'slowestImportMs', label: `slowest: ${byTime[byTime.length - 1]!.module}`, value: round(byTime[byTime.length - 1]!.ms, 1), unit: 'ms' },
    { key: 'largestImportMs', label: `largest (${round(largest.kb)} KB): ${largest.module}`, value: round(largest.ms, 1), unit: 'ms' },
  ];
}

/** The earlier commit's functions beside ours, against the same baseline in the same run. */
function figuresBefore(commit: string, baseline: Measured, before: Measured[], after: Measured[]): Figure[] {
  const typical = median(before.map((f) => f.ms));
  return [
    { key: 'beforeFunctions', label: `before, ${commit}: functions synthesized`, value: before.length },
    { key: 'beforeBundleMedianKb', label: `before, ${commit}: synthesized bundles, median`, value: round(median(before.map((f) => f.kb))), unit: 'KB' },
    { key: 'beforeImportMedianMs', label: `before, ${commit}: function import, median over the functions`, value: round(typical, 1), unit: 'ms' },
    { key: 'beforeImportOverBaseline', label: `before, ${commit}: function import, median / baseline`, value: round(typical / baseline.ms, 2) },
    { key: 'afterOverBefore', label: `function import, median now / median before`, value: round(median(after.map((f) => f.ms)) / typical, 2) },
  ];
}
