import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { localExportRunner } from '#shared/adapters/exports-local.ts';
import { closeLocalLake, createTableSql, type LocalLake, openLocalLake } from '#shared/adapters/lake-duckdb.ts';
import { duckdb } from '#shared/domain/lake/dialects.ts';
import { parseSearchQuery } from '#shared/domain/lake/query.ts';
import { lakeRowsOf } from '#shared/domain/lake/records.ts';
import { LAKE_TABLES } from '#shared/domain/lake/schema.ts';
import { type ExportFormat, traceSearchSql } from '#shared/domain/lake/sql.ts';
import { summarizeTrace } from '#shared/domain/spans/summary.ts';
import { logger } from '#shared/observability/logger.ts';
import { LOCAL_LAKE_MEMORY_LIMIT, LOCAL_LAKE_THREADS } from '../../infra/local/lake.ts';
import { storedSpan } from '../support/spans.ts';

/**
 * Traces whose text is large, written to a lake with the local runtime's memory limit and threads: the
 * black-box probe of 2026-11-30 sent 1,000 one-span traces of a 32 KB input and a 32 KB output, and
 * DuckDB's checkpoint then failed after about 270 of them ("failed to pin block"), an error that
 * invalidated the database until it was reopened (docs/local-runtime.md, "DuckDB's blocks").
 */
const START = Date.parse('2026-11-20T10:00:00Z');
const EXPIRES = START + 86_400_000 * 365;

/** 32 KB of text that does not compress much (the probe's generator): one long word per seed. */
const noise = (seed: number) => {
  let s = '';
  let x = (seed * 2654435761) >>> 0;
  while (s.length < 32 * 1024) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += x.toString(36);
  }
  return s.slice(0, 32 * 1024);
};

/** The probe's trace `i`: one agent span, 32 KB in and 32 KB out, plus a word of its own to find it by. */
const fatTrace = (i: number) => {
  const spans = [
    storedSpan({
      traceId: `many-${i}`,
      spanId: 'root',
      name: 'fat',
      kind: 'agent',
      agentName: 'fat-bot',
      startTimeMs: START + i,
      endTimeMs: START + i + 100,
      durationMs: 100,
      input: `marker${i} ${noise(2 * i)}`.slice(0, 32 * 1024),
      output: noise(2 * i + 1),
    }),
  ];
  return { summary: summarizeTrace(spans), spans, revision: 1 };
};

/** Made once per range and kept: 1,000 traces' text took 5 s to make, and the tests write the same ranges (a write only reads its rows). */
const madeRows = new Map<string, ReturnType<typeof lakeRowsOf>>();
const rowsOfTraces = (from: number, to: number) => {
  const key = `${from}-${to}`;
  let rows = madeRows.get(key);
  if (!rows) {
    rows = lakeRowsOf(
      'tnt_fat',
      Array.from({ length: to - from }, (_, k) => fatTrace(from + k)),
      [],
      EXPIRES,
    );
    madeRows.set(key, rows);
  }
  return rows;
};

const search = (lake: LocalLake, q: string, limit = 100) =>
  lake.query(traceSearchSql(duckdb, { tenantId: 'tnt_fat', query: parseSearchQuery(q), startMs: START - 1, endMs: START + 86_400_000, nowMs: START, limit }));

let dir: string;
let path: string;
const makeDir = async () => {
  dir = await mkdtemp(join(tmpdir(), 'aos-lake-large-'));
  path = join(dir, 'lake', 'traces.duckdb');
};
const removeDir = async () => {
  await closeLocalLake(path);
  await rm(dir, { recursive: true, force: true });
};

describe("the local lake with the probe's 1,000 traces of 64 KB of text, written 70 at a time, within the local memory limit", () => {
  const TRACES = 1000;
  const settings = () => ({ path, memoryLimit: LOCAL_LAKE_MEMORY_LIMIT, threads: LOCAL_LAKE_THREADS });
  // Written once for both tests, which only read them.
  beforeAll(async () => {
    await makeDir();
    const lake = await openLocalLake(settings());
    for (let from = 0; from < TRACES; from += 70) await lake.write(rowsOfTraces(from, Math.min(TRACES, from + 70)));
  }, 180_000);
  afterAll(removeDir);

  it('takes them all, and then finds every one', { timeout: 180_000 }, async () => {
    const lake = await openLocalLake(settings());
    const [count] = await lake.query({ sql: 'SELECT count(*) AS traces FROM lake_traces', params: [] });
    expect(count?.['traces']).toBe(TRACES);
    // Each trace by a word of its own (through the word signature and the text), and all by their agent.
    for (const i of [0, 269, 270, 500, 999]) expect((await search(lake, `marker${i}`)).map((r) => r['trace_id'])).toEqual([`many-${i}`]);
    let seen = 0;
    let page = await search(lake, 'agent:fat-bot');
    while (page.length > 0) {
      seen += page.length;
      const last = page.at(-1)!['position'] as string;
      page = await lake.query(
        traceSearchSql(duckdb, {
          tenantId: 'tnt_fat',
          query: parseSearchQuery('agent:fat-bot'),
          startMs: START - 1,
          endMs: START + 86_400_000,
          nowMs: START,
          limit: 100,
          after: last,
        }),
      );
    }
    expect(seen).toBe(TRACES);

    const [memory] = await lake.query({ sql: 'SELECT sum(memory_usage_bytes) AS bytes FROM duckdb_memory()', params: [] });
    expect(Number(memory?.['bytes'])).toBeLessThanOrEqual(128e6);
  });

  it('exports them in every format: pieces that run out of memory are cut smaller', { timeout: 300_000 }, async () => {
    const lake = await openLocalLake(settings());
    const exports = localExportRunner(() => openLocalLake(settings()), { exportsDir: join(dir, 'exports'), publicAppUrl: 'http://localhost' });
    const selection = { tenantId: 'tnt_fat', query: parseSearchQuery(''), startMs: START - 1, endMs: START + 86_400_000, nowMs: START };
    const logged = vi.spyOn(logger, 'info');
    try {
      for (const format of ['jsonl', 'csv', 'parquet'] as ExportFormat[]) {
        logged.mockClear();
        const file = await exports.run({ tenantId: 'tnt_fat', exportId: `xpt_${format}`, format, selection });
        expect(file.rows).toBe(TRACES);
        // All 1,000 traces fit one piece by their spans, and that piece ran out of DuckDB's memory.
        expect(logged).toHaveBeenCalledWith(expect.stringMatching(/ran out of memory/), expect.objectContaining({ exportId: `xpt_${format}`, spans: 10_000 }));
        // Every input and output whole (Parquet compresses them).
        if (format !== 'parquet') expect(file.bytes).toBeGreaterThan(TRACES * 64 * 1024);
      }
    } finally {
      logged.mockRestore();
    }
    const [parquet] = await lake.query({
      sql: `SELECT count(*) AS traces, count(DISTINCT trace_id) AS ids FROM read_parquet('${join(dir, 'exports', 'tnt_fat', 'xpt_parquet.parquet')}')`,
      params: [],
    });
    expect(parquet).toEqual({ traces: TRACES, ids: TRACES });
  });
});

describe('the local lake with large texts, within the local memory limit', () => {
  beforeEach(makeDir);
  afterEach(removeDir);

  it('recovers by itself when DuckDB invalidates the database: it reopens the file, replays the log and loses no write', { timeout: 300_000 }, async () => {
    // A lake file made before 2026-11-30, in DuckDB's default layout (256 KB blocks, its oldest format),
    // still opens and takes writes.
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'lake'), { recursive: true });
    const old = await DuckDBInstance.create(path);
    const setup = await old.connect();
    for (const table of LAKE_TABLES) await setup.run(createTableSql(table));
    setup.closeSync();
    old.closeSync();

    const settings = { path, memoryLimit: LOCAL_LAKE_MEMORY_LIMIT, threads: LOCAL_LAKE_THREADS };
    let lake = await openLocalLake(settings);
    const [layout] = await lake.query({ sql: "SELECT block_size AS bytes FROM pragma_database_size() WHERE database_name = 'traces'", params: [] });
    expect(layout?.['bytes']).toBe(262_144);
    const TRACES = 280;
    for (let from = 0; from < TRACES / 2; from += 70) await lake.write(rowsOfTraces(from, from + 70));
    // The next write's automatic checkpoint fails as one that cannot pin its memory does: DuckDB calls
    // it fatal and invalidates the database (its checkpoints of large texts did before 2026-12-02). The
    // write is then tried again on the file opened anew.
    const failCheckpoints = { sql: "SET debug_checkpoint_abort = 'before_header'", params: [] };
    await lake.execute([failCheckpoints, { sql: "SET checkpoint_threshold = '1KB'", params: [] }]);
    for (let from = TRACES / 2; from < TRACES; from += 70) await lake.write(rowsOfTraces(from, from + 70));
    // The lake was reopened after the fatal error, and now runs without automatic checkpoints.
    const [threshold] = await lake.query({ sql: "SELECT current_setting('checkpoint_threshold') AS threshold", params: [] });
    expect(threshold?.['threshold']).toBe('931.3 GiB');
    const count = async () => (await lake.query({ sql: 'SELECT count(*) AS traces FROM lake_traces', params: [] }))[0]?.['traces'];
    expect(await count()).toBe(TRACES);
    expect((await search(lake, 'marker250')).map((r) => r['trace_id'])).toEqual(['many-250']);

    // The stop's checkpoint fails too, so the log stays; a restart replays it under the same limit, and
    // the next writes and reads go on.
    await lake.execute([failCheckpoints]);
    await closeLocalLake(path);
    expect((await stat(`${path}.wal`)).size).toBeGreaterThan(0);
    lake = await openLocalLake(settings);
    expect(await count()).toBe(TRACES);
    await lake.write(rowsOfTraces(TRACES, TRACES + 70));
    expect(await count()).toBe(TRACES + 70);
    for (const i of [0, 139, 279, 349]) expect((await search(lake, `marker${i}`)).map((r) => r['trace_id'])).toEqual([`many-${i}`]);
  });
});
