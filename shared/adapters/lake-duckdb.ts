import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { duckdb } from '../domain/lake/dialects.ts';
import { type LakeMaintenance, LakeQueryError, type LakeReader, type LakeWriter } from '../domain/lake/ports.ts';
import type { LakeRows } from '../domain/lake/records.ts';
import { LAKE_TABLES, type LakeColumnType, type LakeRow, type LakeTable } from '../domain/lake/schema.ts';
import type { SqlStatement } from '../domain/lake/sql.ts';
import { logger } from '../observability/logger.ts';

/**
 * The local lake: DuckDB embedded in this process (`@duckdb/node-api`, whose npm package carries its
 * binaries), one database file under DATA_DIR. The local runtime opens it when it starts, like
 * dynalite; handlers running in the same process reach the same database by its path. Only what DuckDB
 * has built in is used (no extension is installed or loaded: nothing is downloaded).
 *
 * `@duckdb/node-api` is imported when a lake is first opened, so Lambda bundles, which leave the
 * package out, never load it.
 */
export interface LocalLakeSettings {
  /** The database file; its directory is created. */
  path: string;
  /** DuckDB's memory_limit, e.g. `256MB`; beyond it DuckDB spills to a temporary directory beside the file. */
  memoryLimit: string;
  threads: number;
  /** Rows written before the instance is closed and opened again (REOPEN_AFTER_ROWS unless given: tests set a few). */
  reopenAfterRows?: number;
  /** Without any use for this long, an instance that has been used is closed and opened again (IDLE_REOPEN_MS for the local runtime); never when not given. */
  idleReopenMs?: number;
  /** Rows written since the last checkpoint below which an idle reopen keeps them in the log (IDLE_REOPEN_AFTER_ROWS unless given: tests set a few). */
  idleReopenAfterRows?: number;
}

export interface LocalLake extends LakeWriter, LakeReader, LakeMaintenance {
  readonly path: string;
  /** Runs `work` on a connection of its own, for work that streams (exports), and closes it after; the lake is not reopened meanwhile. */
  withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** How many instances of the file this lake has opened: one, and one more for each reopen (the lake-writes bench reports it). */
  readonly opens: number;
  /**
   * Runs `work` on a DuckDB of its own, in memory, on one thread, within the lake's memory limit, and
   * closes it: for work that reads and writes files only (joining an export's Parquet pieces), which
   * on the lake's threads would hold a row group per thread.
   */
  scratch<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Refuses new work, waits for the work under way (writes, queries, lent connections), then closes the instance. */
  close(): Promise<void>;
}

/** The DuckDB type of each lake column type: the tables are made with them, and bulk loads (the search bench) read rows as them. */
export const SQL_TYPES: Record<LakeColumnType, string> = { string: 'VARCHAR', long: 'BIGINT', double: 'DOUBLE', boolean: 'BOOLEAN' };

/**
 * No PRIMARY KEY: DuckDB keeps a key's index in memory, which for a million traces and their spans
 * would outgrow the memory limit; the writer replaces rows itself (`replaceRows`).
 */
export const createTableSql = (table: LakeTable): string =>
  `CREATE TABLE IF NOT EXISTS ${table.name} (${table.columns.map((c) => `${c.name} ${SQL_TYPES[c.type]}${c.required ? ' NOT NULL' : ''}`).join(', ')})`;

/** DuckDB's default is 128 MB: a thread's freed memory stays with it until it has peaked at that much in one task. */
const ALLOCATOR_FLUSH_THRESHOLD = '4MB';

const stageOf = (table: LakeTable) => `stage_${table.name}`;
/** How far a trace's start may have moved since it was last written for its old rows still to be replaced. */
const REWRITE_WINDOW_MS = 86_400_000;

/** A DuckDB value as the rest of the service reads it: BIGINTs (all within 2^53 here) as numbers. */
const plain = (value: unknown): string | number | boolean | null => (typeof value === 'bigint' ? Number(value) : (value as string | number | boolean | null));

function append(appender: DuckDBAppender, type: LakeColumnType, value: LakeRow[string] | undefined): void {
  if (value === null || value === undefined) return appender.appendNull();
  switch (type) {
    case 'string':
      return appender.appendVarchar(String(value));
    case 'long':
      return appender.appendBigInt(BigInt(Math.trunc(Number(value))));
    case 'double':
      return appender.appendDouble(Number(value));
    case 'boolean':
      return appender.appendBoolean(Boolean(value));
  }
}

/** The last row of each key: a write replaces, so a later row of the same key wins within one write too. */
function lastPerKey(table: LakeTable, rows: readonly LakeRow[]): LakeRow[] {
  const byKey = new Map<string, LakeRow>();
  for (const row of rows) byKey.set(JSON.stringify(table.key.map((k) => row[k])), row);
  return [...byKey.values()];
}

/** How every DuckDB of the lake runs. */
const engineSettings = (memoryLimit: string, threads: number): Record<string, string> => ({
  memory_limit: memoryLimit,
  threads: String(threads),
  // Nothing is fetched from the network: only what the package has built in (parquet, json, icu).
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  // DuckDB's allocator (jemalloc) otherwise keeps what a query freed: after a 100,000-trace export the
  // process held 150 MB more than DuckDB's own memory. Flushing a thread's cache after any task that
  // allocated more than a little, and purging freed pages in the background, hands it back to the system.
  allocator_flush_threshold: ALLOCATOR_FLUSH_THRESHOLD,
  allocator_background_threads: 'true',
  // No vacuum at checkpoints (DuckDB's default schedules up to 100 tasks). Rows appended since the last
  // checkpoint become a row group of their own, and the vacuum then merged it into the table's last
  // one, rewriting up to 122,880 rows of every column through the buffer manager at each checkpoint.
  // Writing the lake rows of 100,000 corpus traces 20 at a time (docs/local-runtime.md, "No vacuum"):
  // the process peaked at 509 MB with it and 291 MB without, the file ended 409 MB (135 free) against
  // 283 MB (none free). Row groups emptied by deletes (retention) are still dropped; a row group that
  // keeps some rows keeps the room of its deleted ones.
  max_vacuum_tasks: '0',
});

/**
 * How a new lake file is laid out (DuckDB reads both from the file once it exists): blocks of 16 KB,
 * not DuckDB's 256 KB, in the storage format of DuckDB 1.2 and later. A checkpoint holds a block or
 * two of every column of a row group it writes, and the lake's traces table has 95 columns: with
 * 256 KB blocks that was about 100 MB of the 122 MB DuckDB allows itself under a 128 MB limit, and
 * with it the text of the rows written since the row group's last vector began (each trace's
 * search_text), so 64 KB of text per trace invalidated the database after about 300 traces (one
 * column of 24 KB after 1,000). With 16 KB blocks in the old format a 64 KB text still failed after
 * 1,780 rows (DuckDB could not allocate a 68 KB buffer for one string); with the 1.2 format it
 * held for 3,000 (docs/local-runtime.md, "DuckDB's blocks").
 */
export const LAKE_FILE_SETTINGS: Readonly<Record<string, string>> = {
  default_block_size: '16384',
  storage_compatibility_version: 'v1.2.0',
};

/**
 * Whether DuckDB has invalidated the database: after an error it calls fatal (a checkpoint that could
 * not pin the memory it needed, among others) every statement of every connection fails with "database
 * has been invalidated" until the instance is closed and opened again. DuckDB tells it by its message only.
 */
export const isFatalLakeError = (err: unknown): boolean =>
  err instanceof Error && (/\bFATAL Error\b/.test(err.message) || /database has been invalidated/i.test(err.message));

/**
 * A lake reopened after a fatal error runs without DuckDB's automatic checkpoints until the process
 * restarts: the writes the failed checkpoint left in the log are replayed into memory (spilling beside
 * the file), and a checkpoint of them could fail the same way again, which would fail every write and
 * retry until the queue gave the messages up. Without it writes land in the log, durable, and reads see
 * them; the stop's close checkpoints them (DuckDB does at a close whatever the threshold), or, if that
 * fails too, the next start replays the log.
 */
const WITHOUT_CHECKPOINTS = { checkpoint_threshold: '1000GB' };

/**
 * How many rows an instance writes before it is closed and opened again. DuckDB keeps, for as long as
 * an instance is open, a handle for every block the process wrote or read and the column segments of
 * every row group it touched, in glibc's heap, beside its buffers; closing the instance hands them
 * back. `npm run bench -- --scenario lake-writes` (docs/local-runtime.md, "DuckDB reopened"), the
 * lake rows of 100,000 traces written 20 at a time: the memory outside DuckDB's buffers and V8's heap
 * grew from 90 to 179 MB with the lake kept open, and from 97 to 130 MB reopened every 60,000 rows
 * (about 10,000 traces); the writes took 174 s instead of 197 s, and the file was 410 MB instead of
 * 354 (the same data, 59 MB more of it free blocks, which DuckDB gives to later blocks: measured
 * while DuckDB's vacuum still ran, `max_vacuum_tasks`). With the vacuum, 20,000 held more than 60,000,
 * since each reopen's checkpoint rewrote the last row group; without it a checkpoint writes only its
 * own rows, and the memory bench to 100,000 spans peaked at 341 MB at 20,000 against 387 MB at
 * 60,000, storing 264 against 272 spans a second, and the run to a million peaked at 416 against 446 MB
 * (docs/local-runtime.md, "Where it stands"). A reopen waits for the queries under way, and new ones wait for its close and open.
 */
export const REOPEN_AFTER_ROWS = 20_000;

/**
 * How long the local runtime's lake goes without a write, query or lent connection before it is
 * closed and opened again, if it was used since it was opened (checkpointed first unless only a few
 * rows are waiting: IDLE_REOPEN_AFTER_ROWS): what DuckDB holds for its cache (its
 * buffers, up to the memory limit) and for the blocks it touched goes back to the system while the
 * service waits for more, at the cost of a cold cache for the next search (read again from the
 * system's file cache). The memory bench's idle figure measures it (docs/local-runtime.md, "DuckDB
 * reopened when idle").
 */
export const IDLE_REOPEN_MS = 10_000;

/**
 * Rows written since the last checkpoint below which an idle reopen leaves them in the log (replayed
 * by the open) instead of checkpointing them: without a vacuum (`max_vacuum_tasks`) each checkpoint's
 * rows stay a row group of their own, so a trickle of writes, each followed by an idle reopen, would
 * leave a row group per write. The rows are checkpointed by a later reopen, DuckDB's own checkpoint
 * (at 16 MB of log) or the stop. 5,000 rows are about 800 traces.
 */
export const IDLE_REOPEN_AFTER_ROWS = 5_000;

const lakes = new Map<string, Promise<LocalLake>>();
/** Closes under way, by path: the file is opened again only once its last instance is closed. */
const closing = new Map<string, Promise<void>>();

/** The lake at `settings.path`, opened on first use and shared by everything in this process. */
export function openLocalLake(settings: LocalLakeSettings): Promise<LocalLake> {
  let lake = lakes.get(settings.path);
  if (!lake) {
    lake = (closing.get(settings.path) ?? Promise.resolve()).then(() => createLocalLake(settings));
    lakes.set(settings.path, lake);
    lake.catch(() => lakes.delete(settings.path));
  }
  return lake;
}

/** Closes the lake at `path` if this process opened it (the local runtime, when it stops), once the work under way is done. */
export async function closeLocalLake(path: string): Promise<void> {
  const lake = lakes.get(path);
  lakes.delete(path);
  const closed = (async () => (await lake?.catch(() => undefined))?.close())();
  closing.set(path, closed);
  try {
    await closed;
  } finally {
    if (closing.get(path) === closed) closing.delete(path);
  }
}

async function createLocalLake({
  path,
  memoryLimit,
  threads,
  reopenAfterRows = REOPEN_AFTER_ROWS,
  idleReopenMs,
  idleReopenAfterRows = IDLE_REOPEN_AFTER_ROWS,
}: LocalLakeSettings): Promise<LocalLake> {
  const { mkdir } = await import('node:fs/promises');
  const { dirname, join } = await import('node:path');
  const { DuckDBInstance } = await import('@duckdb/node-api');
  await mkdir(dirname(path), { recursive: true });
  const settings = { ...engineSettings(memoryLimit, threads), ...LAKE_FILE_SETTINGS };
  /** Whether instances checkpoint by themselves: once a fatal error made the lake open without (WITHOUT_CHECKPOINTS), not again until the process restarts. */
  let checkpointing = true;
  let opens = 0;
  const openInstance = async (checkpoints: boolean): Promise<DuckDBInstance> => {
    if (!checkpoints) checkpointing = false;
    const opened = await DuckDBInstance.create(path, checkpoints ? settings : { ...settings, ...WITHOUT_CHECKPOINTS });
    try {
      const setup = await opened.connect();
      try {
        for (const table of LAKE_TABLES) await setup.run(createTableSql(table));
      } finally {
        setup.closeSync();
      }
    } catch (err) {
      opened.closeSync();
      throw err;
    }
    opens++;
    return opened;
  };
  // The log a failed checkpoint left is replayed when the file is opened; if that fails, it is
  // replayed once more without automatic checkpoints.
  const openFile = () =>
    checkpointing
      ? openInstance(true).catch((err: unknown) => {
          logger.warn('the local lake could not be opened; opening it again without automatic checkpoints', { path, error: String(err) });
          return openInstance(false);
        })
      : openInstance(false);
  /** Undefined between closing an instance and opening the next, and after an open that failed (the next use tries again). */
  let instance: DuckDBInstance | undefined = await openFile();
  /** Counts the instances replaced: an error of an instance already replaced needs no reopen of its own. */
  let generation = 0;
  let reopening: Promise<void> | undefined;
  /** Rows written since the last checkpoint of a reopen (an idle reopen that kept the log carries them over), and whether anything used the instance since it was opened. */
  let written = 0;
  let used = false;
  let idleTimer: NodeJS.Timeout | undefined;
  /** Queries, writes and connections under way, and of them the connections handed out (exports: long). */
  let inUse = 0;
  let lent = 0;
  const idleWaiters: Array<() => void> = [];
  const whenIdle = (): Promise<void> => (inUse === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve)));
  let closed = false;
  // Writes are serial: one connection of their own, kept, so its staging tables stay for the next write.
  let writer: DuckDBConnection | undefined;

  /**
   * Closes the instance and opens the file again (once, however many calls asked); new uses wait
   * meanwhile. `drain` waits for the uses under way first; a fatal error's reopen does not (every
   * statement of an invalidated instance fails anyway). `keepLog`: the instance was told not to
   * checkpoint as it closes, so the rows written since the last checkpoint stay in the log, replayed
   * by the open, and still count as written.
   */
  const replaceInstance = (drain: boolean, keepLog = false): Promise<void> => {
    reopening ??= (async () => {
      if (drain) await whenIdle();
      try {
        writer?.closeSync();
      } catch {}
      writer = undefined;
      try {
        instance?.closeSync();
      } catch {}
      instance = undefined;
      generation++;
      if (!keepLog) written = 0;
      used = false;
      if (!closed) instance = await openFile();
    })().finally(() => {
      reopening = undefined;
    });
    return reopening;
  };
  /** Closes the invalidated instance and opens the file again, from now on without automatic checkpoints. */
  const reopen = (failed: number, cause: unknown): Promise<void> => {
    if (failed !== generation) return reopening ?? Promise.resolve();
    logger.error('the local lake was invalidated by a fatal DuckDB error; reopening it without automatic checkpoints', { path, error: String(cause) });
    checkpointing = false;
    return replaceInstance(false);
  };
  /** Runs `work` on the open instance, counted as a use from the moment it has it (no await between). */
  const using = async <T>(work: (current: DuckDBInstance, started: number) => Promise<T>, lends = false): Promise<T> => {
    for (;;) {
      if (closed) throw new LakeQueryError('the local lake is closed');
      if (reopening) await reopening.catch(() => undefined);
      else if (!instance) await replaceInstance(false);
      else break;
    }
    inUse++;
    if (lends) lent++;
    used = true;
    try {
      return await work(instance!, generation);
    } finally {
      inUse--;
      if (lends) lent--;
      if (inUse === 0) {
        for (const idle of idleWaiters.splice(0)) idle();
        armIdleReopen();
      }
    }
  };
  /**
   * Runs `work`; if DuckDB invalidated the database meanwhile, reopens it and runs `work` once more (a
   * write is idempotent: it replaces its rows). Other errors pass.
   */
  const recovering = async <T>(work: (current: DuckDBInstance) => Promise<T>, lends = false): Promise<T> => {
    let started = generation;
    try {
      return await using((current, generationNow) => {
        started = generationNow;
        return work(current);
      }, lends);
    } catch (err) {
      if (!isFatalLakeError(err) && started === generation) throw err;
      await reopen(started, err);
      return using(work, lends);
    }
  };
  /**
   * When `due` holds and no connection is lent out, checkpoints (DuckDB refuses while another
   * transaction runs: the close then does it) and reopens the instance, waiting for the queries under
   * way: what DuckDB kept for the blocks it touched, and its buffers, go with the old instance. Runs
   * among the writes, so none is under way. Not after a fatal error (`checkpointing`). Without
   * `checkpoint`, the rows written since the last checkpoint stay in the log (`replaceInstance`'s
   * `keepLog`).
   */
  const reopenForMemory = async (due: () => boolean, checkpoint = true): Promise<void> => {
    const may = () => !closed && checkpointing && instance !== undefined && !reopening && lent === 0 && due();
    if (!may()) return;
    const started = generation;
    const connection = (writer ??= await instance!.connect());
    try {
      await connection.run(checkpoint ? 'CHECKPOINT' : 'PRAGMA disable_checkpoint_on_shutdown');
    } catch (err) {
      if (isFatalLakeError(err)) return reopen(started, err);
    }
    if (may() && started === generation) await replaceInstance(true, !checkpoint);
    else if (!checkpoint && started === generation) {
      // Not reopened after all (a connection was lent meanwhile): the stop checkpoints as usual. If that
      // cannot be asked, the stop leaves the rows in the log, durable, for the next start to replay.
      await connection
        .run('PRAGMA enable_checkpoint_on_shutdown')
        .catch((err: unknown) => logger.warn('the local lake could not ask for its checkpoint at the stop again', { path, error: String(err) }));
    }
  };
  /** Once the instance has written `reopenAfterRows` rows (REOPEN_AFTER_ROWS). */
  const reopenIfDue = () => reopenForMemory(() => written >= reopenAfterRows);
  /**
   * `idleReopenMs` after the last use ended (each end sets the timer again), if nothing is under way
   * and the instance was used since it was opened (IDLE_REOPEN_MS); checkpointed first only if no rows
   * or at least `idleReopenAfterRows` (IDLE_REOPEN_AFTER_ROWS) were written since the last checkpoint.
   */
  function armIdleReopen(): void {
    if (idleReopenMs === undefined || closed) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      serially(() => reopenForMemory(() => used && inUse === 0, written === 0 || written >= idleReopenAfterRows)).catch((err: unknown) =>
        logger.error('the local lake could not be reopened', { path, error: String(err) }),
      );
    }, idleReopenMs);
    idleTimer.unref();
  }

  // One writer at a time: concurrent upserts of the same keys would conflict and fail their messages.
  let writes: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = writes.then(work, work);
    writes = next.catch(() => undefined);
    return next;
  };
  const withConnection = async <T>(current: DuckDBInstance, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> => {
    const connection = await current.connect();
    try {
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  };
  const withWriter = async <T>(current: DuckDBInstance, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> =>
    work((writer ??= await current.connect()));
  const inTransaction = (connection: DuckDBConnection, work: () => Promise<void>) =>
    (async () => {
      await connection.run('BEGIN TRANSACTION');
      try {
        await work();
        await connection.run('COMMIT');
      } catch (err) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    })();

  const [traces, spans, signals] = LAKE_TABLES as [LakeTable, LakeTable, LakeTable];
  /** Appends `rows` (the last of each key) to the table's staging table, and answers the span of their times. */
  async function stage(connection: DuckDBConnection, table: LakeTable, rows: readonly LakeRow[]): Promise<{ from: number; to: number }> {
    await connection.run(`CREATE TEMP TABLE IF NOT EXISTS ${stageOf(table)} AS SELECT * FROM ${table.name} LIMIT 0`);
    const appender = await connection.createAppender(stageOf(table), 'main', 'temp');
    const times: number[] = [];
    for (const row of lastPerKey(table, rows)) {
      for (const column of table.columns) append(appender, column.type, row[column.name]);
      appender.endRow();
      times.push(Number(row[table.time]));
    }
    appender.closeSync();
    return { from: Math.min(...times), to: Math.max(...times) };
  }
  const sameRowSet = (table: LakeTable, other: string) => table.rowSet.map((k) => `${table.name}.${k} = ${other}.${k}`).join(' AND ');
  const insertStaged = async (connection: DuckDBConnection, table: LakeTable) => {
    await connection.run(`INSERT INTO ${table.name} SELECT * FROM ${stageOf(table)}`);
    await connection.run(`DELETE FROM ${stageOf(table)}`);
  };

  /**
   * Replaces rows: deletes what the table holds of the staged keys, then inserts the staged rows, and
   * answers the old rows' sets (their rowSet and time). The delete also names the time range the old
   * rows can be in, which DuckDB turns into skipped row groups: a trace's start only moves earlier as
   * spans arrive, and rarely by more than REWRITE_WINDOW_MS (a signal's id already fixes its time).
   * Within that window it reads the keys of every row: for the traces, a day of them.
   */
  async function replaceRows(connection: DuckDBConnection, table: LakeTable, rows: readonly LakeRow[]): Promise<LakeRow[]> {
    if (rows.length === 0) return [];
    const { from, to } = await stage(connection, table, rows);
    const window = table.time === 'timestamp_ms' ? 0 : REWRITE_WINDOW_MS;
    const replaced = await connection.runAndReadAll(
      `DELETE FROM ${table.name} USING (SELECT DISTINCT ${table.rowSet.join(', ')} FROM ${stageOf(table)}) AS staged WHERE ${sameRowSet(table, 'staged')} AND ${table.name}.${table.time} BETWEEN ? AND ? RETURNING ${[...table.rowSet, table.time].map((c) => `${table.name}.${c} AS ${c}`).join(', ')}`,
      [from, to + window],
    );
    await insertStaged(connection, table);
    return replaced.getRowObjectsJS() as LakeRow[];
  }

  /** Refuses, before anything is staged, a write whose spans do not come with their trace's row at its start (`replaceSpans` relies on it). */
  function requireTraceRows({ traces: traceRows, spans: spanRows }: LakeRows): void {
    const keyOf = (row: LakeRow) => JSON.stringify([row['tenant_id'], row['trace_id']]);
    const startOf = new Map(traceRows.map((row) => [keyOf(row), Number(row[traces.time])]));
    if (spanRows.some((row) => startOf.get(keyOf(row)) !== Number(row[spans.time]))) {
      throw new Error(`a lake write's spans must come with their trace's row, at its start (${traces.time} = ${spans.time})`);
    }
  }

  /**
   * Replaces the spans of the traces written with them. A trace's span rows are only ever written,
   * replaced and deleted together with its trace row (one write; retention and a forgotten agent
   * delete by columns both carry alike), with the trace row's start as their trace_start_ms: a write
   * that would break that (a span without its trace row, or at another start) is refused. So the
   * old span rows are those of the trace rows `replaceRows` just deleted, at those rows' starts: a
   * trace written for the first time has none, and the others' are found in the row groups of their
   * old starts only, not by reading the keys of every span of the last day (a read that grows with
   * the lake: docs/ingestion.md, "The lake's delete was measured apart"). A trace row written without spans leaves none.
   */
  async function replaceSpans(connection: DuckDBConnection, rows: readonly LakeRow[], replacedTraces: readonly LakeRow[]): Promise<void> {
    if (rows.length > 0) await stage(connection, spans, rows);
    const replaced = new Set(replacedTraces.map((row) => JSON.stringify([row['tenant_id'], row['trace_id'], Number(row[traces.time])])));
    if (replaced.size > 0) {
      const table = `replaced_${spans.name}`;
      await connection.run(`CREATE TEMP TABLE IF NOT EXISTS ${table} (tenant_id VARCHAR, trace_id VARCHAR, start_ms BIGINT)`);
      const appender = await connection.createAppender(table, 'main', 'temp');
      const starts: number[] = [];
      for (const entry of replaced) {
        const [tenantId, traceId, start] = JSON.parse(entry) as [string, string, number];
        starts.push(start);
        appender.appendVarchar(tenantId);
        appender.appendVarchar(traceId);
        appender.appendBigInt(BigInt(start));
        appender.endRow();
      }
      appender.closeSync();
      await connection.run(
        `DELETE FROM ${spans.name} USING ${table} WHERE ${sameRowSet(spans, table)} AND ${spans.name}.${spans.time} = ${table}.start_ms AND ${spans.name}.${spans.time} BETWEEN ? AND ?`,
        [Math.min(...starts), Math.max(...starts)],
      );
      await connection.run(`DELETE FROM ${table}`);
    }
    if (rows.length > 0) await insertStaged(connection, spans);
  }

  return {
    path,
    dialect: duckdb,
    get opens() {
      return opens;
    },
    write: (rows: LakeRows) => {
      const done = serially(() =>
        recovering((current) =>
          withWriter(current, (connection) =>
            inTransaction(connection, async () => {
              requireTraceRows(rows);
              const replacedTraces = await replaceRows(connection, traces, rows.traces);
              await replaceSpans(connection, rows.spans, replacedTraces);
              await replaceRows(connection, signals, rows.signals);
            }),
          ),
        ).then(() => {
          written += rows.traces.length + rows.spans.length + rows.signals.length;
        }),
      );
      // The reopen runs next among the writes, after this one has answered its caller.
      serially(reopenIfDue).catch((err: unknown) => logger.error('the local lake could not be reopened', { path, error: String(err) }));
      return done;
    },
    query: async (statement: SqlStatement) => {
      try {
        return await recovering((current) =>
          withConnection(current, async (connection) => {
            const reader = await connection.runAndReadAll(statement.sql, statement.params);
            return reader.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));
          }),
        );
      } catch (err) {
        throw new LakeQueryError(`the local lake refused a query: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    },
    execute: (statements: readonly SqlStatement[]) =>
      serially(() =>
        recovering((current) =>
          withWriter(current, (connection) =>
            inTransaction(connection, async () => {
              for (const statement of statements) await connection.run(statement.sql, statement.params);
            }),
          ),
        ),
      ),
    // An invalidated database fails the connection's first statement, reopened and tried again before
    // the work begins; the work itself is not run again (an export's is not idempotent): an instance it
    // leaves invalidated is reopened by the next use.
    withConnection: (work) =>
      recovering(
        (current) =>
          withConnection(current, async (connection) => {
            await connection.run('SELECT 1');
            try {
              return await work(connection);
            } catch (err) {
              throw isFatalLakeError(err) ? new LakeQueryError('the local lake was invalidated while a connection was lent', { cause: err }) : err;
            }
          }),
        true,
      ),
    async scratch(work) {
      const scratch = await DuckDBInstance.create(':memory:', {
        ...engineSettings(memoryLimit, 1),
        // Spills go beside the lake, not into the directory the process was started from.
        temp_directory: join(dirname(path), 'scratch.tmp'),
        // The files it reads are read once.
        enable_external_file_cache: 'false',
      });
      try {
        const connection = await scratch.connect();
        try {
          return await work(connection);
        } finally {
          connection.closeSync();
        }
      } finally {
        scratch.closeSync();
      }
    },
    close: async () => {
      closed = true;
      clearTimeout(idleTimer);
      await writes;
      await reopening?.catch(() => undefined);
      await whenIdle();
      writer?.closeSync();
      instance?.closeSync();
      instance = undefined;
    },
  };
}
