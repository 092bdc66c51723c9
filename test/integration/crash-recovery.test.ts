import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '#shared/store/client.ts';
import { SPAN_GROUP_PREFIX } from '#shared/store/keys.ts';
import { spansFromItems } from '#shared/store/traces.ts';
import { localTableName, startDynamoDb } from '../../infra/local/dynamodb.ts';
import { tableItems } from '../support/dynamo.ts';
import type { ServiceControl, ServiceMessage } from './crash/service-process.ts';

const SERVICE_PROGRAM = fileURLToPath(new URL('./crash/service-process.ts', import.meta.url));
const TRACES_PER_REQUEST = 5;
const CONCURRENCY = 4;

/** The local runtime in a child process on `dataDir`, with a data directory as `npm start` gives it (from the sources, under tsx). */
async function startService(dataDir: string) {
  const child = fork(SERVICE_PROGRAM, [dataDir], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = (type: ServiceMessage['type']) =>
    new Promise<ServiceMessage>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the service exited (${code}) before "${type}"`));
      child.once('exit', onExit);
      child.once('message', (message: ServiceMessage) => {
        child.off('exit', onExit);
        if (message.type === type) resolve(message);
        else reject(new Error(message.type === 'failed' ? message.message : `expected ${type}, got ${message.type}`));
      });
    });
  const control = (message: ServiceControl) => child.send(message);
  const ready = (await next('ready')) as Extract<ServiceMessage, { type: 'ready' }>;
  return {
    baseUrl: ready.baseUrl,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async drain() {
      const drained = next('drained');
      control({ type: 'drain' });
      await drained;
    },
    async stop() {
      control({ type: 'stop' });
      await exited;
    },
  };
}
type Service = Awaited<ReturnType<typeof startService>>;

interface SentSpan {
  traceId: string;
  spanId: string;
  inputTokens: number;
}

/** Five traces of four spans (an agent root, two LLM calls with tokens, a tool call) per request. */
function requestBody(round: number, request: number): { body: string; spans: SentSpan[] } {
  const now = Date.now();
  const spans = Array.from({ length: TRACES_PER_REQUEST }, (_, t) => {
    const traceId = `crash-${round}-${request}-${t}`;
    const child = (spanId: string, kind: string, inputTokens: number | null) => ({
      traceId,
      spanId,
      parentSpanId: 'root',
      name: kind,
      kind,
      agentName: 'crash-bot',
      model: inputTokens === null ? undefined : 'gpt-4o-mini',
      inputTokens: inputTokens ?? undefined,
      outputTokens: inputTokens === null ? undefined : 10,
      startTime: now + 10,
      endTime: now + 20,
    });
    return [
      { traceId, spanId: 'root', name: 'answer', kind: 'agent', agentName: 'crash-bot', startTime: now, endTime: now + 100, inputTokens: undefined },
      child('llm-1', 'llm', 100 + t),
      child('tool', 'tool', null),
      child('llm-2', 'llm', 200 + request),
    ];
  }).flat();
  return { body: JSON.stringify({ spans }), spans: spans.map((s) => ({ traceId: s.traceId, spanId: s.spanId, inputTokens: s.inputTokens ?? 0 })) };
}

/** When to kill: once `afterAccepted` requests were answered 202, then (sending on, or not) after `waitMs`. */
interface KillPoint {
  name: string;
  afterAccepted: number;
  waitMs: number;
  stopSendingFirst?: boolean;
}

/**
 * Sends requests, `CONCURRENCY` at a time, until the kill point, then kills the service with SIGKILL
 * (requests in flight fail). Resolves with the spans of every request answered 202.
 */
async function sendUntilKilled(service: Service, apiKey: string, round: number, point: KillPoint): Promise<SentSpan[]> {
  const accepted: SentSpan[] = [];
  let answered = 0;
  let sending = true;
  let killed = false;
  let request = 0;
  let reached = () => {};
  const killPointReached = new Promise<void>((resolve) => {
    reached = () => answered >= point.afterAccepted && resolve();
  });
  reached();
  const client = async () => {
    while (sending) {
      const { body, spans } = requestBody(round, request++);
      try {
        const res = await fetch(`${service.baseUrl}/spans`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body });
        const text = await res.text();
        if (res.status !== 202) throw new Error(`POST /spans answered ${res.status}: ${text}`);
        accepted.push(...spans);
        answered++;
        reached();
      } catch (err) {
        if (!killed) throw err;
      }
    }
  };
  const clients = Promise.all(Array.from({ length: CONCURRENCY }, client));
  await Promise.race([killPointReached, clients]);
  if (point.stopSendingFirst) sending = false;
  await new Promise((resolve) => setTimeout(resolve, point.waitMs));
  killed = true;
  sending = false;
  await service.kill();
  await clients;
  return accepted;
}

/** Every span group and trace summary item in the data directory's table, read once the service is gone. */
async function storedTraces(dataDir: string) {
  const dynamo = await startDynamoDb(join(dataDir, 'dynamodb'));
  try {
    const items = await tableItems(createDb(localTableName('aos-local'), dynamo.client));
    const copies = new Map<string, number>();
    for (const item of items.filter((i) => String(i['SK']).startsWith(SPAN_GROUP_PREFIX))) {
      // Each group item on its own: a span stored in two items would be counted twice.
      for (const span of spansFromItems([item])) copies.set(`${span.traceId}/${span.spanId}`, (copies.get(`${span.traceId}/${span.spanId}`) ?? 0) + 1);
    }
    const summaries = new Map(items.filter((i) => i['entity'] === 'traceSummary').map((i) => [String(i['traceId']), i]));
    return { copies, summaries };
  } finally {
    await dynamo.stop();
  }
}

describe('the local runtime killed with SIGKILL during ingestion', () => {
  let dataDir: string;
  let apiKey: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'aos-crash-'));
    const service = await startService(dataDir);
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${service.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const registered = await post('/auth/register', { email: 'crash@example.com', password: 'password-123', firstName: 'Crash', lastName: 'Test' });
    apiKey = (await post('/keys', { name: 'crash' }, registered.data.accessToken)).data.key;
    await service.stop();
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps every span it answered 202 for, once, whenever it is killed', async () => {
    const killPoints: KillPoint[] = [
      { name: 'while the first requests are in flight', afterAccepted: 0, waitMs: 20 },
      { name: 'right after the first 202', afterAccepted: 1, waitMs: 0 },
      { name: 'with requests and worker batches in flight', afterAccepted: 12, waitMs: 0 },
      { name: 'a while into sustained ingestion', afterAccepted: 4, waitMs: 400 },
      { name: 'once sending stopped, while the worker drains', afterAccepted: 12, waitMs: 60, stopSendingFirst: true },
    ];
    const accepted: SentSpan[] = [];
    for (const [round, point] of killPoints.entries()) {
      const service = await startService(dataDir);
      accepted.push(...(await sendUntilKilled(service, apiKey, round, point)));
    }
    expect(accepted.length).toBeGreaterThan(0);

    const service = await startService(dataDir);
    await service.drain();
    await service.stop();

    const { copies, summaries } = await storedTraces(dataDir);
    const lost = accepted.filter((s) => copies.get(`${s.traceId}/${s.spanId}`) === undefined);
    const duplicated = [...copies].filter(([, n]) => n > 1);
    expect({ lost: lost.length, duplicated: duplicated.length }).toEqual({ lost: 0, duplicated: 0 });
    // Summaries are recomputed from the stored spans: a span counted twice would show here.
    const byTrace = new Map<string, SentSpan[]>();
    for (const span of accepted) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
    for (const [traceId, spans] of byTrace) {
      const summary = summaries.get(traceId);
      expect({ traceId, spanCount: summary?.['spanCount'], inputTokens: summary?.['inputTokens'] }).toEqual({
        traceId,
        spanCount: spans.length,
        inputTokens: spans.reduce((sum, s) => sum + s.inputTokens, 0),
      });
    }
  }, 240_000);
});
