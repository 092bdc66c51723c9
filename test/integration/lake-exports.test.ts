import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localExportRunner, windowsOf } from '#shared/adapters/exports-local.ts';
import { duckdb } from '#shared/domain/lake/dialects.ts';
import { parseSearchQuery } from '#shared/domain/lake/query.ts';
import { lakeRowsOf } from '#shared/domain/lake/records.ts';
import { exportPiecesSql, exportSql } from '#shared/domain/lake/sql.ts';
import { type StoredSpan, summarizeTrace } from '#shared/domain/spans/summary.ts';
import { startTestLake } from '../support/lake.ts';
import { storedSpan } from '../support/spans.ts';

const HOUR = Date.parse('2026-11-20T10:00:00Z');
const EXPIRES = HOUR + 86_400_000 * 365;

const span = (traceId: string, i: number, startTimeMs: number): StoredSpan =>
  storedSpan({
    traceId,
    spanId: `${traceId}-s${i}`,
    parentSpanId: i === 0 ? null : `${traceId}-s0`,
    name: `step ${i}`,
    kind: 'llm',
    agentName: 'bot',
    startTimeMs,
    endTimeMs: startTimeMs + 10,
    durationMs: 10,
    input: `question ${traceId}`,
  });

/** A finished trace of two spans starting at `startMs`. */
const trace = (traceId: string, startMs: number) => {
  const spans = [span(traceId, 0, startMs), span(traceId, 1, startMs + 1)];
  return { summary: summarizeTrace(spans), spans, revision: 1 };
};

let lake: Awaited<ReturnType<typeof startTestLake>>;
// One busy hour: twelve traces a millisecond apart, then three that start in the same millisecond.
const crowded = [
  ...Array.from({ length: 12 }, (_, i) => trace(`t${String(i).padStart(2, '0')}`, HOUR + 1_000 + i)),
  ...['u1', 'u2', 'u3'].map((id) => trace(id, HOUR + 2_000)),
];
const SHARED_START = HOUR + 2_000;

beforeAll(async () => {
  lake = await startTestLake();
  await lake.write(lakeRowsOf('tnt_a', crowded, [], EXPIRES));
  // Another tenant's traces in the same milliseconds are no part of tnt_a's pieces.
  await lake.write(lakeRowsOf('tnt_b', crowded.slice(0, 6), [], EXPIRES));
});
afterAll(() => lake.remove());

describe('a local export cut into pieces', () => {
  const selection = { tenantId: 'tnt_a', query: parseSearchQuery(''), startMs: HOUR - 86_400_000, endMs: HOUR + 86_400_000, nowMs: HOUR };

  it('holds a bounded number of spans in each piece however many traces an hour holds, and every trace in exactly one', async () => {
    const pieces = exportPiecesSql(duckdb, selection, 4);
    const starts = (await lake.query(pieces)).map((r) => Number(r['from_ms']));
    const windows = windowsOf(starts, selection.startMs, selection.endMs);
    expect(windows[0]!.endMs).toBe(selection.endMs);
    expect(windows.at(-1)!.startMs).toBe(selection.startMs);

    const exported: string[][] = [];
    for (const window of windows) {
      const rows = await lake.query(exportSql(duckdb, { ...selection, ...window, nested: false }));
      exported.push(rows.map((r) => String(r['trace_id'])));
    }
    expect(exported.flat().sort()).toEqual(crowded.map((t) => t.summary.traceId).sort());
    // Two traces of two spans a piece; the traces of one millisecond stay together.
    const shared = exported.find((ids) => ids.includes('u1'))!;
    expect(shared).toEqual(expect.arrayContaining(['u1', 'u2', 'u3']));
    expect(shared.length).toBeLessThanOrEqual(5);
    for (const ids of exported.filter((ids) => ids !== shared)) expect(ids.length).toBeLessThanOrEqual(2);
    expect(windows.filter((w) => w.startMs <= SHARED_START && SHARED_START < w.endMs)).toHaveLength(1);
  });

  it('is one piece over the whole range when nothing matches', async () => {
    const none = { ...selection, tenantId: 'tnt_nobody' };
    const starts = (await lake.query(exportPiecesSql(duckdb, none, 4))).map((r) => Number(r['from_ms']));
    expect(windowsOf(starts, none.startMs, none.endMs)).toEqual([{ startMs: none.startMs, endMs: none.endMs }]);
  });
});

describe('a local CSV export', () => {
  const formulas = {
    name: '=HYPERLINK("http://evil.example","click")',
    agentName: '-2+3',
    sessionId: '@SUM(1+1)',
    userId: '+cmd|calc',
    model: '\tgpt-4o',
    variant: '\rB',
  };
  const selection = { tenantId: 'tnt_formulas', query: parseSearchQuery(''), startMs: HOUR - 86_400_000, endMs: HOUR + 86_400_000, nowMs: HOUR };

  beforeAll(async () => {
    const spans = [{ ...span('t-formula', 0, HOUR + 5_000), ...formulas, inputTokens: 12 }];
    await lake.write(lakeRowsOf('tnt_formulas', [{ summary: summarizeTrace(spans), spans, revision: 1 }], [], EXPIRES));
  });

  it('writes text cells that start like a spreadsheet formula after a single quote, numbers as they are', async () => {
    const runner = localExportRunner(async () => lake, { exportsDir: lake.dir, publicAppUrl: 'http://127.0.0.1' });
    const { location } = await runner.run({ tenantId: 'tnt_formulas', exportId: 'xpt_formulas', format: 'csv', selection });
    const [row] = await lake.query({
      sql: `SELECT name, agent_name, session_id, user_id, model, variant, input_tokens, duration_ms FROM read_csv('${location}', header = true, all_varchar = true)`,
      params: [],
    });
    expect(row).toEqual({
      name: `'${formulas.name}`,
      agent_name: `'${formulas.agentName}`,
      session_id: `'${formulas.sessionId}`,
      user_id: `'${formulas.userId}`,
      model: `'${formulas.model}`,
      variant: `'${formulas.variant}`,
      input_tokens: '12',
      duration_ms: '10',
    });
  });

  it('leaves text as it is in the formats that are no spreadsheet', async () => {
    const [row] = await lake.query(exportSql(duckdb, { ...selection, nested: true }));
    expect(row).toMatchObject({ name: formulas.name, agent_name: formulas.agentName, session_id: formulas.sessionId, user_id: formulas.userId });
  });
});
