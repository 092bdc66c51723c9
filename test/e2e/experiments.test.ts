import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const RATE_LIMITS = JSON.stringify({ auth: 1000, ingestion: 100_000, standard: 100_000 });

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMITS } });
});
afterAll(() => service?.stop());

let seq = 0;
const tenant = () => service.signUp(`experiments${++seq}-${Date.now()}@example.com`);

const definition = {
  name: 'Shorter system prompt',
  description: 'Does the terse prompt answer more tickets?',
  variants: [
    { key: 'control', weight: 50, config: { prompt: 'v1' } },
    { key: 'terse', weight: 50, config: { prompt: 'v2' } },
  ],
  primaryMetric: 'successRate',
};

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const T0 = Date.now() - 60 * 60_000;

/** A one-span trace of the support bot, tagged with the experiment the native way. */
const taggedTrace = (experimentId: string, variant: string, i: number, ok: boolean) => ({
  traceId: `tr-${variant}-${i}-${hex(4)}`,
  spanId: 'root',
  name: 'answer ticket',
  kind: 'agent',
  agentName: 'support-bot',
  startTime: T0 + i * 1000,
  endTime: T0 + i * 1000 + (variant === 'control' ? 2000 : 1500) + (i % 5) * 100,
  status: ok ? 'ok' : 'error',
  inputTokens: variant === 'control' ? 1200 : 800,
  outputTokens: 200,
  cost: variant === 'control' ? 0.002 : 0.0015,
  experimentId,
  variant,
});

describe('an experiment over HTTP', () => {
  it('create, start, assign, ingest tagged traces and signals, read results, pause and resume, stop', async () => {
    const { apiKey, token } = await tenant();
    const agent = (await service.api('POST', '/agents', { apiKey, body: { name: 'support-bot' } })).body.data;

    const created = await service.api('POST', '/experiments', { apiKey, body: { ...definition, agentId: agent.id } });
    expect(created.status).toBe(201);
    const experiment = created.body.data;
    expect(experiment).toMatchObject({
      id: expect.stringMatching(/^exp_/),
      status: 'draft',
      agentId: agent.id,
      trafficPercentage: 100,
      primaryMetric: 'successRate',
      variants: definition.variants,
      startedAt: null,
      stoppedAt: null,
    });
    const id = experiment.id as string;
    expect((await service.api('GET', `/experiments/${id}`, { token })).body.data).toEqual(experiment);

    const assign = (subjectId: string) => service.api('GET', `/experiments/${id}/assign?subjectId=${encodeURIComponent(subjectId)}`, { apiKey });
    const draft = await assign('user-1');
    expect(draft.status).toBe(400);
    expect(draft.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'The experiment is draft; only running experiments assign variants' });

    const started = await service.api('POST', `/experiments/${id}/start`, { apiKey });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({ status: 'running', startedAt: expect.any(String) });

    const first = await assign('user-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('private, max-age=30');
    expect(first.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(first.body.data).toEqual({
      experimentId: id,
      subjectId: 'user-1',
      variant: expect.stringMatching(/^(control|terse)$/),
      config: expect.objectContaining({ prompt: expect.any(String) }),
    });
    const subjects = Array.from({ length: 40 }, (_, i) => `user-${i}`);
    const assigned = new Map<string, string>();
    for (const subject of subjects) assigned.set(subject, (await assign(subject)).body.data.variant);
    expect(new Set(assigned.values())).toEqual(new Set(['control', 'terse']));
    expect((await assign('user-1')).body.data.variant).toBe(first.body.data.variant);

    // 40 traces per variant: the control answers half the tickets, the terse prompt 36 of 40.
    const spans = [
      ...Array.from({ length: 40 }, (_, i) => taggedTrace(id, 'control', i, i % 2 === 0)),
      ...Array.from({ length: 40 }, (_, i) => taggedTrace(id, 'terse', i, i % 10 !== 0)),
      taggedTrace(id, 'no-such-variant', 0, true),
    ];
    expect((await service.api('POST', '/spans', { apiKey, body: { spans } })).status).toBe(202);
    // Feedback on some traces through their trace id, and one signal tagged in its metadata.
    const feedback = [
      ...spans.slice(0, 4).map((s) => ({ signalName: 'helpfulness', value: 0.5, traceId: s.traceId })),
      ...spans.slice(40, 44).map((s) => ({ signalName: 'helpfulness', value: 0.75, traceId: s.traceId })),
      { signalName: 'helpfulness', value: 1, metadata: { experimentId: id, variant: 'terse' } },
    ];
    expect((await service.api('POST', '/signals/batch', { apiKey, body: { signals: feedback } })).status).toBe(202);
    await service.drainQueues();

    const results = await service.api('GET', `/experiments/${id}/results`, { token });
    expect(results.status).toBe(200);
    const data = results.body.data;
    expect(data).toMatchObject({
      experimentId: id,
      status: 'running',
      primaryMetric: 'successRate',
      control: 'control',
      traces: { finished: 80, unfinished: 0, unknownVariant: 1 },
    });
    expect(data.variants).toEqual([
      {
        key: 'control',
        weight: 50,
        traces: 40,
        successRate: 0.5,
        latencyMs: { avg: 2200, p50: 2200, p95: 2400 },
        avgTokens: 1400,
        avgCost: 0.002,
        signals: { helpfulness: { count: 4, avg: 0.5 } },
      },
      {
        key: 'terse',
        weight: 50,
        traces: 40,
        successRate: 0.9,
        latencyMs: { avg: 1700, p50: 1700, p95: 1900 },
        avgTokens: 1000,
        avgCost: 0.0015,
        signals: { helpfulness: { count: 5, avg: 0.8 } },
      },
    ]);
    const [versusControl] = data.comparisons;
    expect(versusControl.variant).toBe('terse');
    expect(versusControl.successRate).toMatchObject({ test: 'two-proportion z-test', difference: 0.4, significant: true });
    expect(versusControl.latency).toMatchObject({ test: "Welch's t-test", difference: -500, significant: true });
    expect(versusControl.cost).toMatchObject({ difference: -0.0005, pValue: 0, significant: true });
    expect(versusControl.signals.helpfulness).toMatchObject({ difference: 0.3, significant: true });
    expect(data.sampleRatioMismatch).toMatchObject({ checked: true, mismatch: false, pValue: 1 });
    expect(data.verdict).toEqual({ outcome: 'significant', message: 'Variant terse improves success rate by 40.0 points (95% CI 21.9–58.1, p<0.001)' });

    // Pause: no assignments; resume: the same ones as before.
    expect((await service.api('POST', `/experiments/${id}/pause`, { apiKey })).body.data.status).toBe('paused');
    const paused = await assign('user-1');
    expect(paused.status).toBe(400);
    expect(paused.body.error.message).toMatch(/is paused/);
    const pausedAgain = await service.api('POST', `/experiments/${id}/pause`, { apiKey });
    expect(pausedAgain.status).toBe(400);
    expect(pausedAgain.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Cannot pause an experiment that is paused; pause applies to running experiments',
    });
    expect((await service.api('POST', `/experiments/${id}/start`, { apiKey })).body.data).toMatchObject({
      status: 'running',
      startedAt: started.body.data.startedAt,
    });
    for (const subject of subjects) expect((await assign(subject)).body.data.variant).toBe(assigned.get(subject));

    // Stop: final.
    expect((await service.api('POST', `/experiments/${id}/stop`, { apiKey })).body.data).toMatchObject({ status: 'stopped', stoppedAt: expect.any(String) });
    expect((await assign('user-1')).body.error.message).toMatch(/is stopped/);
    const restart = await service.api('POST', `/experiments/${id}/start`, { apiKey });
    expect(restart.status).toBe(400);
    expect(restart.body.error.message).toMatch(/^Cannot start an experiment that is stopped/);
    expect((await service.api('GET', `/experiments/${id}/results`, { apiKey })).body.data).toMatchObject({ status: 'stopped', traces: { finished: 80 } });
  }, 90_000);

  it('counts traces tagged through OTLP attributes experiment.id and experiment.variant', async () => {
    const { apiKey } = await tenant();
    const id = (await service.api('POST', '/experiments', { apiKey, body: definition })).body.data.id;
    await service.api('POST', `/experiments/${id}/start`, { apiKey });
    const span = (variant: string, error: boolean) => ({
      traceId: hex(16),
      spanId: hex(8),
      name: 'invoke_agent',
      startTimeUnixNano: `${T0}000000`,
      endTimeUnixNano: `${T0 + 1000}000000`,
      attributes: [
        { key: 'gen_ai.agent.name', value: { stringValue: 'otel-bot' } },
        { key: 'experiment.id', value: { stringValue: id } },
        { key: 'experiment.variant', value: { stringValue: variant } },
      ],
      status: { code: error ? 2 : 1 },
    });
    const body = {
      resourceSpans: [
        { resource: { attributes: [] }, scopeSpans: [{ scope: {}, spans: [span('control', false), span('terse', true), span('terse', false)] }] },
      ],
    };
    expect((await service.api('POST', '/v1/traces', { apiKey, body })).status).toBe(200);
    await service.drainQueues();
    const data = (await service.api('GET', `/experiments/${id}/results`, { apiKey })).body.data;
    expect(data.variants.map((v: { key: string; traces: number; successRate: number }) => [v.key, v.traces, v.successRate])).toEqual([
      ['control', 1, 1],
      ['terse', 2, 0.5],
    ]);
    expect(data.verdict.outcome).toBe('insufficient_data');
  });

  it('lists experiments newest first, filtered by status, paginated', async () => {
    const { apiKey } = await tenant();
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) ids.push((await service.api('POST', '/experiments', { apiKey, body: { ...definition, name } })).body.data.id);
    await service.api('POST', `/experiments/${ids[1]}/start`, { apiKey });

    const all = await service.api('GET', '/experiments?limit=2', { apiKey });
    expect(all.body.data.map((e: { name: string }) => e.name)).toEqual(['three', 'two']);
    expect(all.body.pagination).toEqual({ total: 3, limit: 2, skip: 0, hasMore: true, nextCursor: expect.any(String), totalExact: true });
    const running = await service.api('GET', '/experiments?status=running', { apiKey });
    expect(running.body.data.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
    expect((await service.api('GET', '/experiments?status=done', { apiKey })).body.error.message).toMatch(/status/);
  });

  it('refuses bad input naming the field, and answers 404 for another tenant', async () => {
    const { apiKey } = await tenant();
    const other = await tenant();
    const create = (body: unknown) => service.api('POST', '/experiments', { apiKey, body });

    const badWeights = await create({
      ...definition,
      variants: [
        { key: 'a', weight: 60 },
        { key: 'b', weight: 30 },
      ],
    });
    expect(badWeights.status).toBe(400);
    expect(badWeights.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'Invalid body: variants: weights must sum to 100 (they sum to 90)' });
    expect((await create({ ...definition, variants: [{ key: 'a', weight: 100 }] })).body.error.message).toMatch(/variants: must have 2 to 10 variants/);
    expect(
      (
        await create({
          ...definition,
          variants: [
            { key: 'a', weight: 50 },
            { key: 'a', weight: 50 },
          ],
        })
      ).body.error.message,
    ).toMatch(/variants: keys must be unique/);
    expect((await create({ ...definition, trafficPercentage: 150 })).body.error.message).toMatch(/trafficPercentage/);
    expect((await create({ ...definition, name: '' })).body.error.message).toMatch(/name/);

    const otherAgent = (await service.api('POST', '/agents', { apiKey: other.apiKey, body: { name: 'theirs' } })).body.data.id;
    const foreignAgent = await create({ ...definition, agentId: otherAgent });
    expect(foreignAgent.status).toBe(404);
    expect(foreignAgent.body.error).toEqual({ code: 'NOT_FOUND', message: 'Agent not found' });
    expect((await service.api('GET', `/experiments?agentId=${otherAgent}`, { apiKey })).status).toBe(404);

    const theirs = (await service.api('POST', '/experiments', { apiKey: other.apiKey, body: definition })).body.data.id;
    await service.api('POST', `/experiments/${theirs}/start`, { apiKey: other.apiKey });
    for (const [method, path] of [
      ['GET', `/experiments/${theirs}`],
      ['POST', `/experiments/${theirs}/start`],
      ['POST', `/experiments/${theirs}/pause`],
      ['POST', `/experiments/${theirs}/stop`],
      ['GET', `/experiments/${theirs}/assign?subjectId=u1`],
      ['GET', `/experiments/${theirs}/results`],
      ['GET', '/experiments/exp_missing'],
    ] as const) {
      const res = await service.api(method, path, { apiKey });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'Experiment not found' });
    }
    expect((await service.api('GET', '/experiments', { apiKey })).body.data).toEqual([]);
    // Still running for its owner.
    expect((await service.api('GET', `/experiments/${theirs}`, { apiKey: other.apiKey })).body.data.status).toBe('running');

    const missingSubject = await service.api('GET', `/experiments/${theirs}/assign`, { apiKey: other.apiKey });
    expect(missingSubject.status).toBe(400);
    expect(missingSubject.body.error.message).toMatch(/subjectId: is required/);
    expect((await service.api('GET', `/experiments/${theirs}`)).status).toBe(401);
  });
});

/**
 * `npm start` in a child process: a real restart needs a new process, since handlers loaded in one keep
 * the first runtime's endpoints. Resolves once it listens, with its base URL and a stop that waits for exit.
 */
async function startServiceProcess(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    cwd: join(import.meta.dirname, '../..'),
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, RATE_LIMITS },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Agent Observability Service: (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening: ${output}`)));
  });
  const call = async (method: string, path: string, init: { apiKey?: string; token?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (init.apiKey) headers['x-api-key'] = init.apiKey;
    if (init.token) headers['authorization'] = `Bearer ${init.token}`;
    const res = await fetch(`${baseUrl}${path}`, { method, headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
    return (await res.json()) as { data: any };
  };
  return {
    call,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('stickiness across a restart', () => {
  it('assigns every subject the same variant after the service process restarts on the same data', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'aos-experiments-'));
    try {
      const subjects = Array.from({ length: 30 }, (_, i) => `subject-${i}`);
      const before = await startServiceProcess(dataDir);
      const reg = await before.call('POST', '/auth/register', {
        body: { email: 'sticky@example.com', password: 'password-123', firstName: 'S', lastName: 'T' },
      });
      const apiKey = (await before.call('POST', '/keys', { token: reg.data.accessToken, body: { name: 'sdk' } })).data.key as string;
      const id = (await before.call('POST', '/experiments', { apiKey, body: { ...definition, trafficPercentage: 70 } })).data.id as string;
      await before.call('POST', `/experiments/${id}/start`, { apiKey });
      const assignments = (on: typeof before) =>
        Promise.all(subjects.map(async (s) => (await on.call('GET', `/experiments/${id}/assign?subjectId=${s}`, { apiKey })).data.variant));
      const first = await assignments(before);
      await before.stop();

      const after = await startServiceProcess(dataDir);
      try {
        expect(await assignments(after)).toEqual(first);
      } finally {
        await after.stop();
      }
      expect(first).toContain(null);
      expect(first).toContain('control');
      expect(first).toContain('terse');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
