import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeLocalLake, openLocalLake } from '#shared/adapters/lake-duckdb.ts';
import { type LakeSignalInput, lakeRowsOf } from '#shared/domain/lake/records.ts';
import { summarizeTrace } from '#shared/domain/spans/summary.ts';
import { startTestLake } from '../support/lake.ts';
import { storedSpan } from '../support/spans.ts';

const START = Date.parse('2026-11-20T10:00:00Z');
const EXPIRES = START + 86_400_000 * 365;

/** A finished trace whose spans are numbered `spanNumbers`, starting at `startMs`. */
const trace = (traceId: string, startMs: number, spanNumbers: readonly number[] = [0, 1, 2, 3, 4]) => {
  const spans = spanNumbers.map((i, position) =>
    storedSpan({
      traceId,
      spanId: `${traceId}-s${i}`,
      parentSpanId: i === spanNumbers[0] ? null : `${traceId}-s${spanNumbers[0]}`,
      name: `step ${i}`,
      kind: 'llm',
      startTimeMs: startMs + position,
      endTimeMs: startMs + position + 10,
      durationMs: 10,
      input: `question about the order of ${traceId}`,
    }),
  );
  return { summary: summarizeTrace(spans), spans, revision: 1 };
};

const signal = (id: string, value: number): LakeSignalInput => ({
  id,
  signalName: 'thumbs',
  value,
  traceId: 't1',
  spanId: null,
  agentId: null,
  metadata: {},
  timestampMs: START,
});

let lake: Awaited<ReturnType<typeof startTestLake>>;
beforeEach(async () => {
  lake = await startTestLake();
});
afterEach(() => lake.remove());

const rowsOf = async (sql: string) => (await lake.query({ sql, params: [] })).map((r) => Object.values(r).join(' '));

describe('the local lake written again', () => {
  it("replaces a trace's row and every one of its spans, when its start moved earlier too, and leaves the rest alone", async () => {
    await lake.write(lakeRowsOf('tnt_a', [trace('t1', START), trace('t2', START + 5)], [], EXPIRES));
    await lake.write(lakeRowsOf('tnt_b', [trace('t1', START)], [], EXPIRES));
    // A late span moved t1's start a minute earlier, and it now has spans 7 and 8 only (a write of its
    // own: its old rows start after every start it brings).
    await lake.write(lakeRowsOf('tnt_a', [trace('t1', START - 60_000, [7, 8])], [], EXPIRES));
    // t2 now has three of its five spans.
    await lake.write(lakeRowsOf('tnt_a', [trace('t2', START + 5, [0, 1, 2])], [], EXPIRES));

    expect(await rowsOf('SELECT tenant_id, trace_id, start_ms, span_count FROM lake_traces ORDER BY tenant_id, trace_id')).toEqual([
      `tnt_a t1 ${START - 60_000} 2`,
      `tnt_a t2 ${START + 5} 3`,
      `tnt_b t1 ${START} 5`,
    ]);
    expect(await rowsOf("SELECT span_id, trace_start_ms FROM lake_spans WHERE tenant_id = 'tnt_a' AND trace_id = 't1' ORDER BY span_id")).toEqual([
      `t1-s7 ${START - 60_000}`,
      `t1-s8 ${START - 60_000}`,
    ]);
    expect(await rowsOf("SELECT span_id FROM lake_spans WHERE tenant_id = 'tnt_a' AND trace_id = 't2' ORDER BY span_id")).toEqual(['t2-s0', 't2-s1', 't2-s2']);
    expect(await rowsOf("SELECT count(*) FROM lake_spans WHERE tenant_id = 'tnt_b'")).toEqual(['5']);
  });

  it("refuses spans without their trace's row, or at another start than its row's, and writes nothing of them", async () => {
    const rows = lakeRowsOf('tnt_a', [trace('t1', START)], [], EXPIRES);
    await expect(lake.write({ traces: [], spans: rows.spans, signals: [] })).rejects.toThrow(/trace's row/);
    const moved = rows.spans.map((span, i) => (i === 0 ? { ...span, trace_start_ms: START - 1 } : span));
    await expect(lake.write({ ...rows, spans: moved })).rejects.toThrow(/trace's row/);
    expect(await rowsOf('SELECT (SELECT count(*) FROM lake_traces) + (SELECT count(*) FROM lake_spans)')).toEqual(['0']);
  });

  it("takes a trace's old spans away when its row is written again without any, and keeps the spans of the traces written before", async () => {
    await lake.write(lakeRowsOf('tnt_a', [trace('t1', START), trace('t2', START)], [], EXPIRES));
    // Each write's old traces are forgotten once it is done: remembered, t1's would take its two new
    // spans away again when t2 is rewritten below.
    await lake.write(lakeRowsOf('tnt_a', [trace('t1', START, [0, 1])], [], EXPIRES));
    await lake.write(lakeRowsOf('tnt_a', [trace('t3', START)], [], EXPIRES));
    expect(await rowsOf('SELECT trace_id, count(*) FROM lake_spans GROUP BY trace_id ORDER BY trace_id')).toEqual(['t1 2', 't2 5', 't3 5']);
    const { traces } = lakeRowsOf('tnt_a', [trace('t2', START)], [], EXPIRES);
    await lake.write({ traces, spans: [], signals: [] });
    expect(await rowsOf('SELECT trace_id, count(*) FROM lake_spans GROUP BY trace_id ORDER BY trace_id')).toEqual(['t1 2', 't3 5']);
    expect(await rowsOf('SELECT count(*) FROM lake_traces')).toEqual(['3']);
  });

  it("replaces only the spans of the traces it writes again, at their old starts, among many traces' spans of the same day", async () => {
    const many = Array.from({ length: 200 }, (_, i) => trace(`t${i}`, START + i * 1_000));
    await lake.write(lakeRowsOf('tnt_a', many.slice(0, 100), [], EXPIRES));
    await lake.write(lakeRowsOf('tnt_a', many.slice(100), [], EXPIRES));
    // Written again: t3 with an earlier start and fewer spans, t150 with the same; t999 for the first time.
    await lake.write(lakeRowsOf('tnt_a', [trace('t3', START - 5_000, [1, 2]), trace('t150', START + 150_000, [0, 9]), trace('t999', START)], [], EXPIRES));
    expect(await rowsOf("SELECT count(*), count(DISTINCT trace_id) FROM lake_spans WHERE tenant_id = 'tnt_a'")).toEqual([`${198 * 5 + 2 + 2 + 5} 201`]);
    expect(await rowsOf("SELECT span_id, trace_start_ms FROM lake_spans WHERE trace_id IN ('t3', 't150') ORDER BY span_id")).toEqual([
      `t150-s0 ${START + 150_000}`,
      `t150-s9 ${START + 150_000}`,
      `t3-s1 ${START - 5_000}`,
      `t3-s2 ${START - 5_000}`,
    ]);
  });

  it('keeps one row of a signal written again, the latest', async () => {
    await lake.write(lakeRowsOf('tnt_a', [], [signal('sig_1', 1), signal('sig_2', 0)], EXPIRES));
    await lake.write(lakeRowsOf('tnt_a', [], [signal('sig_1', 0)], EXPIRES));
    expect(await rowsOf('SELECT signal_id, value FROM lake_signals ORDER BY signal_id')).toEqual(['sig_1 0', 'sig_2 0']);
  });
});

describe('the local lake checkpointed', () => {
  it("rewrites none of the rows already in the file: each checkpoint's rows stay a row group of their own", async () => {
    const path = join(lake.dir, 'checkpointed.duckdb');
    // Reopened (and so checkpointed) after each write of 60 rows (ten traces and their spans).
    const checkpointed = await openLocalLake({ path, memoryLimit: '128MB', threads: 1, reopenAfterRows: 60 });
    const blocksOf = async () =>
      (
        await checkpointed.query({
          sql: "SELECT row_group_id AS rowGroup, list(DISTINCT block_id ORDER BY block_id) AS blocks FROM pragma_storage_info('lake_traces') WHERE block_id >= 0 GROUP BY ALL ORDER BY ALL",
          params: [],
        })
      ).map((r) => `${r['rowGroup']}: ${String(r['blocks'])}`);
    const tenTraces = (n: number) =>
      lakeRowsOf(
        'tnt_a',
        Array.from({ length: 10 }, (_, i) => trace(`t${n}-${i}`, START + n * 100 + i)),
        [],
        EXPIRES,
      );
    try {
      await checkpointed.write(tenTraces(0));
      await checkpointed.execute([]);
      const first = await blocksOf();
      expect(first).toHaveLength(1);
      await checkpointed.write(tenTraces(1));
      await checkpointed.execute([]);
      expect(checkpointed.opens).toBe(3);
      const [kept, added] = await blocksOf();
      // DuckDB's vacuum would have merged the two row groups into one, written anew.
      expect(kept).toBe(first[0]);
      expect(added).toMatch(/^1: /);
      expect((await checkpointed.query({ sql: 'SELECT count(*) AS n FROM lake_traces', params: [] }))[0]).toEqual({ n: 20 });
    } finally {
      await closeLocalLake(path);
    }
  });
});

describe('the local lake reopened to give back memory', () => {
  /** A lake of its own beside the test's, reopened after every 12 rows: a write of two traces of five spans. */
  const openSmall = () => openLocalLake({ path: join(lake.dir, 'reopened.duckdb'), memoryLimit: '128MB', threads: 1, reopenAfterRows: 12 });
  const twoTraces = (n: number) => lakeRowsOf('tnt_a', [trace(`t${n}a`, START + n * 10), trace(`t${n}b`, START + n * 10 + 5)], [], EXPIRES);
  const countsOf = async (small: Awaited<ReturnType<typeof openSmall>>) =>
    (await small.query({ sql: 'SELECT (SELECT count(*) FROM lake_traces) AS traces, (SELECT count(*) FROM lake_spans) AS spans', params: [] }))[0];

  /** A connection lent out, as an export holds one, until `release`; `exporting` then answers the table's row count. */
  const lendConnection = async (small: Awaited<ReturnType<typeof openSmall>>, table: string) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const exporting = small.withConnection(async (connection) => {
      holding();
      await released;
      return (await connection.runAndReadAll(`SELECT count(*) AS n FROM ${table}`)).getRowObjectsJS()[0];
    });
    await held;
    return { exporting, release };
  };

  it('reopens between writes once it has written the rows it was given, and keeps every row once', async () => {
    const small = await openSmall();
    try {
      for (let n = 0; n < 10; n++) await small.write(twoTraces(n));
      // The writes' queue holds the last reopen: an empty transaction waits for it.
      await small.execute([]);
      expect(small.opens).toBe(11);
      expect(await countsOf(small)).toEqual({ traces: 20, spans: 100 });
    } finally {
      await closeLocalLake(join(lake.dir, 'reopened.duckdb'));
    }
  });

  it('answers queries made while it writes and reopens: a reopen waits for them, and they for it', async () => {
    const small = await openSmall();
    try {
      const queries: Array<Promise<{ written: number; counts: Record<string, unknown> | undefined }>> = [];
      for (let n = 0; n < 10; n++) {
        await small.write(twoTraces(n));
        // Started while the reopen this write made due is queued or under way, not awaited.
        for (let q = 0; q < 3; q++) queries.push(countsOf(small).then((counts) => ({ written: 2 * (n + 1), counts })));
      }
      for (const { written, counts } of await Promise.all(queries)) expect(Number(counts?.['traces'])).toBeGreaterThanOrEqual(written);
      await small.execute([]);
      expect(small.opens).toBe(11);
      expect(await countsOf(small)).toEqual({ traces: 20, spans: 100 });
    } finally {
      await closeLocalLake(join(lake.dir, 'reopened.duckdb'));
    }
  });

  it('waits for a connection in use (an export) to be given back before it reopens', async () => {
    const small = await openSmall();
    try {
      const { exporting, release } = await lendConnection(small, 'lake_traces');
      await small.write(twoTraces(0));
      await small.write(twoTraces(1));
      await small.execute([]);
      expect(small.opens).toBe(1);

      release();
      expect(await exporting).toEqual({ n: 4n });
      await small.write(twoTraces(2));
      await small.execute([]);
      expect(small.opens).toBe(2);
      expect(await countsOf(small)).toEqual({ traces: 6, spans: 30 });
    } finally {
      await closeLocalLake(join(lake.dir, 'reopened.duckdb'));
    }
  });

  it('reopens once it has gone unused for a while after being used, checkpointing only enough rows, and not while a connection is lent', async () => {
    const path = join(lake.dir, 'idle.duckdb');
    const IDLE_MS = 400;
    // twoTraces writes 12 rows: two writes reach 20.
    const idle = await openLocalLake({ path, memoryLimit: '128MB', threads: 1, idleReopenMs: IDLE_MS, idleReopenAfterRows: 20 });
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const logBytes = () =>
      stat(`${path}.wal`).then(
        (file) => file.size,
        () => 0,
      );
    const traceRowGroups = async () =>
      (await idle.query({ sql: "SELECT count(DISTINCT row_group_id) AS n FROM pragma_storage_info('lake_traces') WHERE persistent", params: [] }))[0]?.['n'];
    /** Waits (up to 10 s, for a slow machine) until it has been opened `opens` times, and holds it to that. */
    const opensReach = async (opens: number) => {
      for (const deadline = Date.now() + 10_000; idle.opens < opens && Date.now() < deadline; ) await sleep(20);
      expect(idle.opens).toBe(opens);
    };
    try {
      // Opened and not used: nothing to give back.
      await sleep(3 * IDLE_MS);
      expect(idle.opens).toBe(1);

      // A trickle's rows stay in the log through the reopen (a checkpoint would make a row group of
      // them), until enough have come to be checkpointed together.
      await idle.write(twoTraces(0));
      await opensReach(2);
      expect(await logBytes()).toBeGreaterThan(0);
      await idle.write(twoTraces(1));
      await opensReach(3);
      expect(await logBytes()).toBe(0);
      // The reopened instance has not been used since: it stays.
      await sleep(3 * IDLE_MS);
      expect(idle.opens).toBe(3);

      // Used steadily (a query every 20 ms or so), it is not idle. The two writes' traces are one row group.
      expect(await traceRowGroups()).toBe(1);
      for (let q = 0; q < 40; q++) {
        await countsOf(idle);
        await sleep(20);
      }
      expect(idle.opens).toBe(3);
      await opensReach(4);

      const { exporting, release } = await lendConnection(idle, 'lake_traces');
      await sleep(3 * IDLE_MS);
      expect(idle.opens).toBe(4);
      release();
      expect(await exporting).toEqual({ n: 4n });
      await opensReach(5);
      expect(await countsOf(idle)).toEqual({ traces: 4, spans: 20 });
    } finally {
      await closeLocalLake(path);
    }
  });

  it('closes once a lent connection is given back, and opens the file again only after', async () => {
    const path = join(lake.dir, 'reopened.duckdb');
    const small = await openSmall();
    await small.write(twoTraces(0));
    const { exporting, release } = await lendConnection(small, 'lake_spans');
    let closed = false;
    const closing = closeLocalLake(path).then(() => {
      closed = true;
    });
    const openedAgain = openSmall();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    await expect(small.query({ sql: 'SELECT 1', params: [] })).rejects.toThrow('closed');

    release();
    expect(await exporting).toEqual({ n: 10n });
    await closing;
    const again = await openedAgain;
    try {
      expect(again).not.toBe(small);
      expect(await countsOf(again)).toEqual({ traces: 2, spans: 10 });
    } finally {
      await closeLocalLake(path);
    }
  });
});
