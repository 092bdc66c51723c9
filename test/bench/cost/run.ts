// Quiet handler logs and the SDK's Node 20 notice; the local runtime sets everything else it needs.
import '../../support/env.ts';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestService } from '../../support/service.ts';
import { serviceDb, signUp } from '../service.ts';
import { type AthenaOptions, estimateAthena, formatAthenaReport } from './athena.ts';
import { billOf } from './bill.ts';
import { deployment } from './deployment.ts';
import { createMeter } from './meter.ts';
import { replay } from './replay.ts';
import { formatCostReport, writeCostResults } from './report.ts';
import { measureStorage } from './storage.ts';
import { minutesOf, WORKLOAD, type Workload } from './workload.ts';

/** The local runtime's lines about a failed request, queue message or job. */
const RUNTIME_PROBLEM = /failed|threw|dead-letter|could not|aborted/;

const ENV = {
  RATE_LIMITS: JSON.stringify({ standard: 1_000_000, ingestion: 1_000_000, strict: 1_000, auth: 1_000 }),
  // Every trace of a judged agent is judged, to price judging per trace; in production the budget caps it.
  EVALUATION_DAILY_BUDGET: '1000000',
};

/** A whole number of the command line, within bounds. */
function wholeNumber(values: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const text = values[name];
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}, not "${text}"`);
  return value;
}

function optionsOf(args: string[]): { workload: Workload; athena: AthenaOptions } {
  const { values } = parseArgs({ args, options: { minutes: { type: 'string' }, 'lake-traces': { type: 'string' }, 'lake-sample': { type: 'string' } } });
  return {
    workload: { ...WORKLOAD, minutes: wholeNumber(values, 'minutes', WORKLOAD.minutes, 1, 120) },
    athena: {
      tenantTraces: wholeNumber(values, 'lake-traces', 1_000_000, 1000, 1e10),
      sampleTraces: wholeNumber(values, 'lake-sample', 20_000, 1000, 1_000_000),
    },
  };
}

/**
 * `npm run cost [-- --minutes <n> --lake-traces <n> --lake-sample <n>]`: replays the recorded workload
 * (workload.ts) against the local service while counting what AWS would bill for it, then prints the
 * cost per million spans and per 1,000 judged traces with the prices it used; then what Athena would
 * scan and bill for each kind of search and an export of a tenant's `lake-traces` traces, measured on
 * `lake-sample` seeded ones (athena.ts). Writes the figures to test/bench/results/cost.json.
 */
async function main(): Promise<void> {
  const { workload, athena } = optionsOf(process.argv.slice(2));
  const progress = (line: string) => console.error(`[cost] ${line}`);
  progress('reading memory sizes, the judge model and the lake layout from the CDK app');
  const deployed = deployment();
  progress(`estimating Athena's scans of a tenant's ${athena.tenantTraces.toLocaleString('en-US')} traces in the lake`);
  const lake = await estimateAthena(athena, deployed.lake, progress);
  const meter = createMeter();
  meter.install();
  const problems: string[] = [];
  const service = await startTestService({ env: ENV, loadModule: meter.loadModule, log: (line) => void (RUNTIME_PROBLEM.test(line) && problems.push(line)) });
  try {
    const account = await signUp(service, workload.plan);
    progress(`replaying ${workload.minutes} minutes of ${workload.tracesPerMinute} traces`);
    const replayed = await replay({ service, account, problems: () => problems }, workload, minutesOf(workload, Date.now()), meter, progress);
    progress('measuring the stored items');
    const storage = await measureStorage(serviceDb());
    const report = { workload, replayed, deployment: deployed, usage: meter.usage, storage, bill: billOf(meter.usage, replayed, storage, deployed), lake };
    console.log(formatCostReport(report));
    console.log(formatAthenaReport(lake));
    console.log(`\nwritten to ${relative(process.cwd(), await writeCostResults(report))}`);
  } finally {
    await service.stop();
  }
}

// Exits explicitly: the HTTP and SDK clients' idle keep-alive sockets must not hold the process open.
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
