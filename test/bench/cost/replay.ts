import { catalog } from '#shared/catalog.ts';
import type { OutboxMessage, TestService } from '../../support/service.ts';
import { postBatches } from '../ingest/load.ts';
import { drainOrFail } from '../load/drain.ts';
import { BenchFailure } from '../scenario.ts';
import { type BenchAccount, expectStatus } from '../service.ts';
import type { Meter } from './meter.ts';
import { agentNamesOf, alertConfigOf, dashboardView, type Minute, type Workload } from './workload.ts';

const CONCURRENCY = 4;
const DRAIN_TIMEOUT_MS = 600_000;

export interface ReplayTarget {
  service: TestService;
  account: BenchAccount;
  /** The local runtime's lines about failed requests, messages and jobs, so far. */
  problems: () => readonly string[];
}

export interface Replayed {
  spans: number;
  traces: number;
  ingestRequests: number;
  dashboardViews: number;
  dashboardReads: number;
  emails: number;
  sms: number;
}

/** The workload's agents, each with its alert configuration, before any of their traces arrives. */
async function configureAgents(service: TestService, account: BenchAccount, workload: Workload, minutes: readonly Minute[]): Promise<void> {
  const names = agentNamesOf(minutes);
  const missing = [...workload.judgedAgents, ...workload.smsAgents].filter((name) => !names.includes(name));
  if (missing.length > 0) throw new Error(`the workload configures agents its traces never name: ${missing.join(', ')}`);
  for (const name of names) {
    const created = expectStatus(await service.api('POST', '/agents', { apiKey: account.apiKey, body: { name } }), 201, `create agent ${name}`);
    const path = `/agents/${created.body.data.id}/alerts`;
    expectStatus(await service.api('PUT', path, { apiKey: account.apiKey, body: alertConfigOf(workload, name) }), 200, `configure the alerts of ${name}`);
  }
}

async function sendMinute(service: TestService, account: BenchAccount, minute: Minute): Promise<void> {
  const outcomes = await postBatches(service, account.apiKey, minute.batches, CONCURRENCY);
  const refused = outcomes.find((o) => o.problem !== undefined);
  if (refused) throw new BenchFailure(`a request of the workload was not fully accepted: ${refused.problem}`);
}

/** A dashboard view, with the user's token as a browser has it; answers how many requests it made. */
async function viewDashboard(service: TestService, account: BenchAccount, workload: Workload): Promise<number> {
  const get = async (path: string) => expectStatus(await service.api('GET', path, { token: account.token }), 200, `dashboard GET ${path}`).body;
  const { traceList, others } = dashboardView(workload, new Date());
  const newest = ((await get(traceList)).data as Array<{ traceId: string }>)[0];
  if (newest) await get(`/spans/traces/${newest.traceId}`);
  for (const path of others) await get(path);
  return 1 + (newest ? 1 : 0) + others.length;
}

const countChannel = (messages: readonly OutboxMessage[], channel: OutboxMessage['channel']) => messages.filter((m) => m.channel === channel).length;

/**
 * Replays the workload minute by minute (its requests, then its dashboard views), waits until every
 * queue is empty, then runs each schedule once more so that the work the traffic left for the jobs
 * (rollup compaction, profile learning) is counted too. Only that is metered: the account and the
 * agents' configuration are made before.
 */
export async function replay(
  { service, account, problems }: ReplayTarget,
  workload: Workload,
  minutes: readonly Minute[],
  meter: Meter,
  progress: (line: string) => void,
): Promise<Replayed> {
  await configureAgents(service, account, workload, minutes);
  await drainOrFail(service, problems, DRAIN_TIMEOUT_MS);
  const outboxBefore = await service.readOutbox();
  const replayed: Replayed = { spans: 0, traces: 0, ingestRequests: 0, dashboardViews: 0, dashboardReads: 0, emails: 0, sms: 0 };
  meter.start();
  for (const [i, minute] of minutes.entries()) {
    progress(`minute ${i + 1} of ${minutes.length}: ${minute.batches.length} requests, ${minute.views} dashboard view(s)`);
    await sendMinute(service, account, minute);
    replayed.ingestRequests += minute.batches.length;
    for (const batch of minute.batches) {
      replayed.spans += batch.spanCount;
      replayed.traces += batch.traces.length;
    }
    for (let view = 0; view < minute.views; view++) replayed.dashboardReads += await viewDashboard(service, account, workload);
    replayed.dashboardViews += minute.views;
  }
  progress('waiting for the workers, then running each schedule once');
  await drainOrFail(service, problems, DRAIN_TIMEOUT_MS);
  for (const schedule of catalog.schedules) await service.runSchedule(schedule.id);
  await drainOrFail(service, problems, DRAIN_TIMEOUT_MS);
  meter.stop();
  const sent = (await service.readOutbox()).slice(outboxBefore.length);
  return { ...replayed, emails: countChannel(sent, 'email'), sms: countChannel(sent, 'sms') };
}
