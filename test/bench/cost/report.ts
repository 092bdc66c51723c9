import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { priceTable } from '#shared/domain/pricing/estimate.ts';
import type { AthenaEstimate } from './athena.ts';
import { type Bill, type CostLine, totalOf } from './bill.ts';
import type { Deployment } from './deployment.ts';
import type { Usage } from './meter.ts';
import { PRICES } from './prices.ts';
import type { Replayed } from './replay.ts';
import type { EntityStorage } from './storage.ts';
import type { Workload } from './workload.ts';

export const COST_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'cost.json');
export const TARGET_PER_MILLION_SPANS = 1.5;

/** What the figures rest on besides the counts; printed with them and kept in cost.json. */
const NOTES = [
  "Lambda durations are the handlers' wall-clock times in one local process, where every function, dynalite and the queues share one Node.js event loop (x64, not Graviton); a 256 MB Lambda has about 1/7 of a vCPU. Read the GB-s as an order of magnitude.",
  'Not counted: Lambda INIT (cold start) time, billed since August 2025; CloudWatch Logs ingestion of the access and function logs ($0.50/GB); X-Ray; Secrets Manager reads of the signing seed per cold start; data transfer.',
  'DynamoDB: table capacity as dynalite reports it (ReturnConsumedCapacity TOTAL, the 1 KB / 4 KB rounding of DynamoDB); GSI writes are computed from the written items (both GSIs project ALL), assuming a put never moves an item within an index (a moved entry costs a second write); the index writes of batch deletes are not known.',
  "Storage: every item left in the table after the replay, sized by DynamoDB's rules plus 100 bytes per item and per index entry, kept until its TTL (items without a TTL count one month). Rollups and other per-minute or per-agent items grow with time and agents, not spans: they are priced at this workload's density.",
  "Judging: one Bedrock Converse call per trace and type; tokens estimated at 4 characters each from the prompt the Bedrock judge sends and a verdict the size of the built-in judge's; the evaluate worker's wait for Bedrock is not in its duration; the daily budget (EVALUATION_DAILY_BUDGET) is raised for the replay, while in production it caps how many traces are judged.",
  "Fixed monthly costs do not depend on the traffic: the schedules (at their measured average run) and the event source mappings' idle long polls; the replay's own idle polls are left out.",
];

const money = (dollars: number) => `$${dollars.toFixed(4)}`;
const price = (dollars: number) => `$${Number(dollars.toPrecision(4))}`;
const amount = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: n < 10 ? 3 : 0 });

function scaled(lines: readonly CostLine[], factor: number): CostLine[] {
  return lines.map((l) => ({ ...l, quantity: l.quantity * factor, dollars: l.dollars * factor }));
}

function table(title: string, lines: readonly CostLine[], footer: string): string {
  const total = totalOf(lines);
  const width = Math.max(...lines.map((l) => l.item.length));
  const rows = [...lines]
    .sort((a, b) => b.dollars - a.dollars)
    .map(
      (l) =>
        `  ${l.item.padEnd(width)}  ${`${amount(l.quantity)} ${l.unit}`.padStart(24)}  ${money(l.dollars).padStart(9)}  ${total > 0 ? `${Math.round((100 * l.dollars) / total)}%`.padStart(4) : ''}`,
    );
  return [`\n${title}`, ...rows, `  ${'total'.padEnd(width)}  ${''.padStart(24)}  ${money(total).padStart(9)}  ${footer}`].join('\n');
}

export interface CostReport {
  workload: Workload;
  replayed: Replayed;
  deployment: Deployment;
  usage: Usage;
  storage: Map<string, EntityStorage>;
  bill: Bill;
  /** Searches and exports on Athena, estimated for the lake's layout. */
  lake: AthenaEstimate;
}

function figures({ replayed, usage, bill }: CostReport) {
  const perMillionSpans = scaled(bill.pipeline, 1_000_000 / replayed.spans);
  const perThousandJudged = usage.judge.tracesJudged > 0 ? scaled(bill.judging, 1000 / usage.judge.tracesJudged) : [];
  const total = totalOf(perMillionSpans);
  return {
    perMillionSpans,
    perThousandJudged,
    total,
    withWorkloadJudging: totalOf(scaled([...bill.pipeline, ...bill.judging], 1_000_000 / replayed.spans)),
    met: total <= TARGET_PER_MILLION_SPANS,
  };
}

const SHOWN_FUNCTIONS = 6;

/** Units summed by kind over every function: the total, and each kind's share, largest first. */
function sharesByKind(records: readonly Record<string, number>[]): { total: number; shares: string } {
  const byKind = new Map<string, number>();
  for (const record of records) for (const [kind, units] of Object.entries(record)) byKind.set(kind, (byKind.get(kind) ?? 0) + units);
  const total = [...byKind.values()].reduce((s, n) => s + n, 0);
  const shares = [...byKind].sort(([, a], [, b]) => b - a).map(([kind, units]) => `${kind} ${Math.round((100 * units) / total)}%`);
  return { total, shares: shares.join(', ') };
}

function countsText({ usage, storage, replayed, deployment }: CostReport): string {
  const dynamo = [...usage.dynamodb.values()];
  const calls = dynamo.reduce((s, u) => s + u.calls, 0);
  const withCapacity = dynamo.reduce((s, u) => s + u.callsWithCapacity, 0);
  const unknownIndexWrites = dynamo.reduce((s, u) => s + u.writesWithoutImage, 0);
  const reportedWrites = dynamo.reduce((s, u) => s + u.tableWriteUnits, 0);
  const writes = sharesByKind(dynamo.map((u) => u.computedWritesByKind));
  const reads = sharesByKind(dynamo.map((u) => u.readsByKind));
  const queues = [...usage.queues].map(
    ([id, q]) =>
      `${id}: ${q.messagesSent} messages, ${q.billedRequests} billed requests (${q.sendCalls} sends, ${q.receiveCalls} receives, ${q.deleteCalls} deletes), ${q.idleReceiveCalls} idle polls`,
  );
  const kinds = [...storage]
    .sort(([, a], [, b]) => b.tableGbMonths + b.indexGbMonths - (a.tableGbMonths + a.indexGbMonths))
    .map(
      ([kind, e]) =>
        `${kind}: ${e.items} items, ${Math.round(e.averageItemBytes)} B, ${e.indexEntriesPerItem.toFixed(1)} index entries, ${e.averageLifetimeDays.toFixed(1)} days`,
    );
  const functions = [...usage.functions]
    .map(([module, f]) => ({ module, ...f, memoryMb: deployment.functions.get(module)?.memoryMb ?? 0 }))
    .sort((a, b) => b.billedMs * b.memoryMb - a.billedMs * a.memoryMb)
    .slice(0, SHOWN_FUNCTIONS)
    .map((f) => `${f.module}: ${f.invocations} invocations, ${Math.round(f.billedMs / f.invocations)} ms average, ${f.memoryMb} MB`);
  return [
    `\nCounted while replaying: ${replayed.spans} spans in ${replayed.traces} traces, ${replayed.ingestRequests} POST /api/spans, ${replayed.dashboardViews} dashboard views (${replayed.dashboardReads} GETs), ${usage.judge.tracesJudged} traces judged (${usage.judge.calls} calls), ${replayed.emails} e-mails, ${replayed.sms} SMS`,
    `  DynamoDB: ${calls} calls, ${withCapacity} answered with ConsumedCapacity (the rest failed a condition); ${unknownIndexWrites} writes whose item (so index writes) the meter did not see`,
    `  DynamoDB table writes: ${reportedWrites} units reported by dynalite, ${writes.total} computed from the items written; by kind: ${writes.shares}`,
    `  DynamoDB reads: ${Math.round(reads.total)} units; by what was read: ${reads.shares}`,
    ...queues.map((q) => `  SQS ${q}`),
    '  Lambda, largest GB-s first:',
    ...functions.map((f) => `    ${f}`),
    '  stored items by kind (largest share of storage first):',
    ...kinds.map((k) => `    ${k}`),
  ].join('\n');
}

function priceText(report: CostReport): string {
  const judge = priceTable().priceOf(report.deployment.judgeModelId)!;
  return [
    `\nPrices (${PRICES.region}, list, as of ${PRICES.asOf}; test/bench/cost/prices.ts):`,
    `  DynamoDB on demand $${PRICES.dynamodb.perMillionWriteRequestUnits}/M WRU, $${PRICES.dynamodb.perMillionReadRequestUnits}/M RRU, storage $${PRICES.dynamodb.storagePerGbMonth}/GB-month, PITR $${PRICES.dynamodb.pitrPerGbMonth}/GB-month`,
    `  Lambda ${PRICES.lambda.architecture} $${PRICES.lambda.perMillionRequests}/M requests, $${PRICES.lambda.perGbSecond}/GB-s; API Gateway HTTP API $${PRICES.apiGateway.perMillionHttpRequests}/M requests (512 KB units)`,
    `  SQS standard $${PRICES.sqs.perMillionRequests}/M requests (64 KB chunks); SES $${PRICES.ses.perEmail * 1000}/1,000 e-mails; SNS SMS (US) $${PRICES.sns.perUsSms}/message + carrier fees`,
    `  Bedrock ${report.deployment.judgeModelId} ${price(judge.inputPerMTok / 1000)}/1K input tokens, ${price(judge.outputPerMTok / 1000)}/1K output tokens (shared/domain/pricing/model-prices.ts)`,
  ].join('\n');
}

export function formatCostReport(report: CostReport): string {
  const f = figures(report);
  const verdict = `target ≤ $${TARGET_PER_MILLION_SPANS.toFixed(2)}: ${f.met ? 'met' : 'NOT met'}`;
  return [
    table('Per million spans: ingest, store 30 days, alert, dashboard (no LLM judging)', f.perMillionSpans, verdict),
    table(`Per 1,000 judged traces (${report.deployment.judgeModelId}, 4 types each)`, f.perThousandJudged, ''),
    `\nWith this workload's judging (${report.usage.judge.tracesJudged} of ${report.replayed.traces} traces judged): ${money(f.withWorkloadJudging)} per million spans`,
    table(
      'Alert notifications of the replay (per message, not in the per-span figure: cooldowns and NOTIFICATIONS_PER_HOUR bound them)',
      report.bill.notifications,
      '',
    ),
    table('Fixed per month, whatever the traffic', report.bill.fixedMonthly, ''),
    countsText(report),
    priceText(report),
    '\nNotes:',
    ...NOTES.map((n) => `  - ${n}`),
  ].join('\n');
}

const record = <T>(map: Map<string, T>) => Object.fromEntries(map);

export async function writeCostResults(report: CostReport): Promise<string> {
  const f = figures(report);
  const judge = priceTable().priceOf(report.deployment.judgeModelId)!;
  const result = {
    measuredAt: new Date().toISOString(),
    node: process.version,
    prices: { ...PRICES, bedrock: { model: report.deployment.judgeModelId, inputPerMTok: judge.inputPerMTok, outputPerMTok: judge.outputPerMTok } },
    workload: report.workload,
    replayed: report.replayed,
    perMillionSpans: { total: f.total, target: TARGET_PER_MILLION_SPANS, met: f.met, lines: f.perMillionSpans },
    perThousandJudgedTraces: { total: totalOf(f.perThousandJudged), lines: f.perThousandJudged },
    notificationsOfTheReplay: { total: totalOf(report.bill.notifications), lines: report.bill.notifications },
    perMillionSpansWithWorkloadJudging: f.withWorkloadJudging,
    fixedMonthly: { total: totalOf(report.bill.fixedMonthly), lines: report.bill.fixedMonthly },
    lake: {
      ...report.lake,
      layout: { ...report.lake.layout, tables: Object.fromEntries(report.lake.layout.tables) },
    },
    measured: {
      functions: record(report.usage.functions),
      memoryMb: Object.fromEntries([...report.usage.functions.keys()].map((m) => [m, report.deployment.functions.get(m)?.memoryMb])),
      dynamodb: record(report.usage.dynamodb),
      queues: record(report.usage.queues),
      judge: report.usage.judge,
      storage: record(report.storage),
    },
    notes: NOTES,
  };
  await mkdir(dirname(COST_FILE), { recursive: true });
  await writeFile(COST_FILE, `${JSON.stringify(result, null, 2)}\n`);
  return COST_FILE;
}
