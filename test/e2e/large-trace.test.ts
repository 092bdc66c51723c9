import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { keptWholeText, largeNativeTrace } from '../support/spans.ts';

/**
 * A trace larger than one answer can carry: Lambda returns at most 6 MB (the local gateway refuses the
 * same, as API Gateway's 500), so its spans come in pages, each answer within it.
 */
let service: TestService;
let owner: { apiKey: string };
let other: { apiKey: string };
beforeAll(async () => {
  service = await startTestService();
  owner = await service.signUp('large-trace-owner@example.com');
  other = await service.signUp('large-trace-other@example.com');
}, 60_000);
afterAll(() => service?.stop());

const SPANS = 150;
const at = Date.now() - 3_600_000;
const largeTrace = (traceId: string) => largeNativeTrace(traceId, SPANS, at);

async function send(apiKey: string, spans: ReadonlyArray<Record<string, unknown>>) {
  for (let i = 0; i < spans.length; i += 50) {
    expect((await service.api('POST', '/spans', { apiKey, body: { spans: spans.slice(i, i + 50) } })).status).toBe(202);
  }
  await service.drainQueues();
}

describe('a trace too large for one answer', () => {
  it('gives its spans in pages, each answer within what Lambda returns, every span once and in tree order', async () => {
    await send(owner.apiKey, largeTrace('trace-large'));
    const log = { traceId: 'trace-large', level: 'info', message: 'started', timestamp: new Date(at).toISOString() };
    expect((await service.api('POST', '/logs', { apiKey: owner.apiKey, body: { logs: [log] } })).status).toBe(202);
    await service.drainQueues();

    const pages = [];
    let cursor: string | null = null;
    do {
      const path: string = `/spans/traces/trace-large${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await service.api('GET', path, { apiKey: owner.apiKey });
      expect(res.status, path).toBe(200);
      pages.push(res.body.data);
      cursor = res.body.data.spansNextCursor;
      expect(pages.length).toBeLessThan(10);
    } while (cursor);

    expect(pages.length).toBeGreaterThan(1);
    const spans = pages.flatMap((p) => p.spans as Array<{ spanId: string; input: string }>);
    expect(spans.map((s) => s.spanId)).toEqual(['root', ...Array.from({ length: SPANS - 1 }, (_, i) => `call-${String(i).padStart(3, '0')}`)]);
    expect(spans[1]!.input).toBe(keptWholeText('prompt', 0));
    // The first page has the trace's logs and signals; the later ones only its spans, with its figures.
    expect(pages[0].logs.map((l: { message: string }) => l.message)).toEqual(['started']);
    expect(pages[0].logsLeftOut).toBe(0);
    for (const page of pages.slice(1)) {
      expect(page).toMatchObject({ traceId: 'trace-large', spanCount: SPANS, logs: [], signals: [], logsLeftOut: 0, signalsLeftOut: 0 });
    }
  });

  it("refuses its cursor for another trace, and another tenant's reading", async () => {
    const first = (await service.api('GET', '/spans/traces/trace-large', { apiKey: owner.apiKey })).body.data;
    const cursor = encodeURIComponent(first.spansNextCursor);
    await send(owner.apiKey, [{ traceId: 'trace-small', spanId: 'root', name: 'short', kind: 'agent', startTime: at, endTime: at + 10 }]);
    const small = await service.api('GET', `/spans/traces/trace-small`, { apiKey: owner.apiKey });
    expect(small.body.data.spansNextCursor).toBeNull();
    const elsewhere = await service.api('GET', `/spans/traces/trace-small?cursor=${cursor}`, { apiKey: owner.apiKey });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.message).toMatch(/^Invalid query: cursor: /);
    // Bound to the tenant too: another tenant's reading with it is refused as another list's.
    expect((await service.api('GET', `/spans/traces/trace-large?cursor=${cursor}`, { apiKey: other.apiKey })).status).toBe(400);
    expect((await service.api('GET', '/spans/traces/trace-large', { apiKey: other.apiKey })).status).toBe(404);
  });

  it("keeps at most about 16 MB of a trace's inputs and outputs whole: spans past that keep their figures, ids and a head of each", async () => {
    const spans = largeNativeTrace('trace-huge', 300, at).map((span, i) => ({ ...span, ...(i > 0 ? { inputTokens: 100, outputTokens: 10 } : {}) }));
    await send(owner.apiKey, spans);
    const read = [];
    let cursor: string | null = null;
    do {
      const res = await service.api('GET', `/spans/traces/trace-huge${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { apiKey: owner.apiKey });
      read.push(...(res.body.data.spans as Array<{ spanId: string; input: string | null; output: string | null; inputTokens: number | null }>));
      cursor = res.body.data.spansNextCursor;
      if (!cursor) expect(res.body.data).toMatchObject({ spanCount: 300, inputTokens: 29_900, outputTokens: 2_990 });
    } while (cursor);
    expect(read.map((s) => s.spanId)).toEqual(spans.map((s) => s.spanId));
    const cut = read.filter((s) => s.input?.includes('this trace already holds 16 MB'));
    const whole = read.filter((s) => s.input?.length === 32 * 1024);
    expect(cut.length).toBeGreaterThan(0);
    expect(whole.length + cut.length).toBe(299);
    const kept = read.reduce((sum, s) => sum + Buffer.byteLength(s.input ?? '') + Buffer.byteLength(s.output ?? ''), 0);
    // The bound, and at most a message's worth past it (the request that reached it is kept whole).
    expect(kept).toBeLessThan(16 * 1024 * 1024 + 50 * 64 * 1024 + 300 * 3 * 1024);
    expect(cut.every((s) => s.inputTokens === 100)).toBe(true);
  }, 120_000);

  it('gives as many of its signals as fit in a quarter of the answer, and says how many more there are', async () => {
    await send(owner.apiKey, [{ traceId: 'trace-rated', spanId: 'root', name: 'rated run', kind: 'agent', startTime: at, endTime: at + 10 }]);
    // 240 signals of about 28 KB of metadata each: more than Lambda returns, were they all in one answer.
    const metadata = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`note${i}`, `${i}`.repeat(4000)]));
    const signals = Array.from({ length: 240 }, (_, i) => ({ signalName: 'review', value: i, traceId: 'trace-rated', metadata }));
    for (let i = 0; i < signals.length; i += 120) {
      expect((await service.api('POST', '/signals/batch', { apiKey: owner.apiKey, body: { signals: signals.slice(i, i + 120) } })).status).toBe(202);
    }
    await service.drainQueues();
    const res = await service.api('GET', '/spans/traces/trace-rated', { apiKey: owner.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data.signals.length).toBeGreaterThan(0);
    expect(res.body.data.signals.length + res.body.data.signalsLeftOut).toBe(240);
    expect(res.body.data.signalsLeftOut).toBeGreaterThan(0);
    const listed = await service.api('GET', '/signals?traceId=trace-rated&limit=100', { apiKey: owner.apiKey });
    expect(listed.body.pagination.total).toBe(240);
  }, 60_000);
});
