import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { API_BASE_PATH, type Catalog, queueUrlEnv, catalog as serviceCatalog } from '#shared/catalog.ts';
import { hostedSignInOrigins, parseExternalIssuers } from '#shared/external-issuers.ts';
import { createConsoleSite } from './console-site.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { ensureTable, incrementalSweeper, type LocalDynamoDb, localTableName, startDynamoDb, sweepExpiredItems } from './dynamodb.ts';
import { type ApiServer, createApiServer } from './http-server.ts';
import { installInvokeStore } from './invoke-store.ts';
import { type LocalLakeService, startLocalLake } from './lake.ts';
import { createInvoker, type FunctionKind, functionFor, type Invoke, jobFunction, type LoadModule, workerFunction } from './lambda.ts';
import { type MappingReserve, reserveLevelDbMappings } from './leveldb-mappings.ts';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS } from './local-account.ts';
import { errorText, type Log } from './log.ts';
import { type QueuePoller, startQueuePoller } from './queue-poller.ts';
import { createRouter } from './router.ts';
import { createTimers, scheduledEvent, type Timers } from './schedules.ts';
import { listen, origin } from './servers.ts';
import { loadSigningSeed } from './signing-seed.ts';
import { createQueue, type LocalQueue, type LocalSqs, queueCounts, startSqs } from './sqs.ts';

export interface LocalServiceOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Where the table, the queues, the outbox and the signing seed live; everything in memory when absent. */
  dataDir?: string;
  /** Environment for the handlers, applied over the runtime's own (e.g. RATE_LIMITS). */
  env?: Record<string, string>;
  /** Routes, queues and schedules to serve (default: the service's catalog). */
  catalog?: Catalog;
  /**
   * Imports one of the service's modules by its path from the repository's root: the configuration
   * and the logger at start, and the handlers (default: the TypeScript source, as tsx's loader reads
   * it; `npm start` passes its build's, `serviceModulesFrom`).
   */
  serviceModules?: LoadModule;
  /** Imports a handler module by repository path (default: `serviceModules`); tests pass their own. */
  loadModule?: LoadModule;
  log?: Log;
  /**
   * How often a slice of the table is swept of expired items (dynalite has no TTL): a page of
   * `TTL_SWEEP_SLICE_ITEMS` items every second by default, so a slice never holds requests up for
   * long; `false` never.
   */
  ttlSweepEveryMs?: number | false;
  /** A production build of the console (`ensureConsoleBuild`), served at every path outside `/api`. */
  consoleDir?: string;
}

export interface LocalService {
  /** `http://host:port/api` */
  baseUrl: string;
  outboxDir: string;
  dataDir: string | undefined;
  /** Stops taking requests, finishes the ones in flight, drains the queues, then shuts everything down. */
  stop(): Promise<void>;
  /** Resolves once every queue is empty and no message is in flight; rejects after `timeoutMs`. */
  drainQueues(timeoutMs?: number): Promise<void>;
  /** Runs a schedule's job now; rejects with the job's error. */
  runSchedule(id: string): Promise<void>;
  /** Sweeps the whole table of expired items now (dynalite has no TTL) and the expired export files (S3's lifecycle on AWS); resolves with how many it deleted. */
  sweepExpired(): Promise<number>;
  /** Invokes one function with the given event, as Lambda would; resolves with its result. */
  invoke(kind: FunctionKind, id: string, event: unknown): Promise<unknown>;
  /** The environment the handlers run with (table, local endpoints, queue URLs, signing seed). */
  environment: Readonly<Record<string, string>>;
}

const TABLE_PREFIX = 'aos-local';
const TABLE_NAME = localTableName(TABLE_PREFIX);
const JWT_ISSUER = 'urn:aos:local';
const DEFAULT_SWEEP_EVERY_MS = 1000;
/** Items a sweep slice scans: a few milliseconds of dynalite's time. */
const TTL_SWEEP_SLICE_ITEMS = 200;
const DRAIN_TIMEOUT_MS = 30_000;
const DRAIN_CHECK_MS = 25;

/**
 * The service's modules under `root` (a URL ending in `/`), each by its path from the repository's
 * root with `.ts` becoming `extension`: the sources themselves, or a build that keeps their paths.
 */
const serviceModulesAt =
  (root: URL, extension: '.ts' | '.js'): LoadModule =>
  (modulePath) =>
    import(new URL(modulePath.replace(/\.ts$/, extension), root).href);

const sourceModules = serviceModulesAt(new URL('../../', import.meta.url), '.ts');

/**
 * The service's modules as an entry point at `entryUrl` (its `import.meta.url`) finds them, the
 * repository's root being `rootFromEntry` up from it: built ones when the entry is built (a `.js`
 * module, build-service.js), the sources otherwise.
 */
export const serviceModulesFrom = (entryUrl: string, rootFromEntry: string): LoadModule =>
  serviceModulesAt(new URL(rootFromEntry, entryUrl), new URL(entryUrl).pathname.endsWith('.js') ? '.js' : '.ts');

/** What has been started, so that stop() (and a failed start) shuts down exactly that. */
interface Running {
  /** Where the queues are kept on disk; in memory when absent. */
  dataDir?: string;
  unlockDataDir?: () => Promise<void>;
  /** Taken before the stores open, so that they read their files without mapping them (see leveldb-mappings.ts). */
  mappingReserve?: MappingReserve;
  dynamoDb?: LocalDynamoDb;
  lake?: LocalLakeService;
  sqs?: LocalSqs;
  queues: LocalQueue[];
  api?: ApiServer;
  pollers: QueuePoller[];
  timers: Timers;
  temporaryOutbox?: string;
}

/**
 * The whole service in this process: the route handlers behind an HTTP server that speaks API
 * Gateway's event format, dynalite for DynamoDB (in a worker thread, so on another core than the
 * handlers), DuckDB for the trace lake, durable local queues with
 * pollers for the consumers, timers for the schedules and the TTL sweep, and an outbox directory for
 * e-mail and SMS.
 *
 * Handlers read their configuration from process.env once, when first imported, so the environment
 * is set before any of them loads, and a handler loaded by one runtime keeps that runtime's settings
 * for the life of the process: run one runtime of the real handlers per process.
 */
export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const { host = '127.0.0.1', port = 0, catalog = serviceCatalog, log = (line) => console.log(line), ttlSweepEveryMs = DEFAULT_SWEEP_EVERY_MS } = options;
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const running: Running = { queues: [], pollers: [], timers: createTimers() };
  // Before the first AWS SDK call, which caches whichever InvokeStore it finds first.
  installInvokeStore();
  try {
    if (dataDir) {
      running.dataDir = dataDir;
      running.unlockDataDir = await lockDataDir(dataDir);
      // Only memory rides on it: a reserve that cannot be built (a full disk) does not stop the start.
      running.mappingReserve = await reserveLevelDbMappings(join(dataDir, 'leveldb-mappings')).catch((err: unknown) => {
        log(`[leveldb] table files will be mapped into memory: the mapping reserve failed: ${errorText(err)}`);
        return undefined;
      });
    }
    const dynamoDb = (running.dynamoDb = await startDynamoDb(dataDir && join(dataDir, 'dynamodb')));
    await ensureTable(dynamoDb.client, TABLE_NAME, TABLE_PREFIX);
    const lake = (running.lake = await startLocalLake(dataDir));
    const sqs = (running.sqs = await startSqs(dataDir && join(dataDir, 'queues')));
    for (const def of catalog.queues) running.queues.push(await createQueue(sqs.client, TABLE_NAME, def));
    const signingSeed = await loadSigningSeed(dataDir);
    const outboxDir = dataDir ? await mkdirp(join(dataDir, 'outbox')) : (running.temporaryOutbox = await mkdtemp(join(tmpdir(), 'aos-outbox-')));

    const serviceModules = options.serviceModules ?? sourceModules;
    const invoke = createInvoker(options.loadModule ?? serviceModules);
    const signInOrigins = hostedSignInOrigins(parseExternalIssuers(options.env?.['JWT_EXTERNAL_ISSUERS'] ?? process.env['JWT_EXTERNAL_ISSUERS']));
    const consoleSite = options.consoleDir === undefined ? undefined : createConsoleSite(options.consoleDir, signInOrigins);
    const api = (running.api = createApiServer(createRouter(catalog), invoke, log, consoleSite));
    const appOrigin = origin(host, await listen(api.server, port, host));
    // Synchronously after listen resolves, so before any request can load a handler.
    const env = { ...handlerEnvironment({ dynamoDb, sqs, signingSeed, outboxDir, appOrigin }, running.queues), ...lake.environment };
    Object.assign(process.env, env, options.env);
    // Read as the handlers will read them (the configuration, the log level), now rather than on the
    // first request, so a bad setting fails the start (each request would otherwise answer 500 for it).
    await serviceModules('shared/config.ts');
    await serviceModules('shared/observability/logger.ts');

    const pollerOf = new Map(running.queues.map((q) => [q.name, startQueuePoller(sqs.client, q, (event) => invoke(workerFunction(q.def), event), log)]));
    running.pollers = [...pollerOf.values()];
    // A send wakes the poller of the queue that got messages, no other (each receive is a call this
    // thread both makes and serves); a dead-letter queue has no poller.
    sqs.onSend((queueName) => pollerOf.get(queueName)?.wake());
    const runSchedule = (id: string) => runJob(catalog, invoke, id);
    const sweepExpired = async () => (await lake.sweepExports(Date.now())) + (await sweepExpiredItems(dynamoDb.client, TABLE_NAME));
    const sweepTableSlice = incrementalSweeper(dynamoDb.client, TABLE_NAME, TTL_SWEEP_SLICE_ITEMS);
    const sweepSlice = async () => (await lake.sweepExports(Date.now())) + (await sweepTableSlice());
    startTimers(running.timers, catalog, runSchedule, ttlSweepEveryMs === false ? undefined : { everyMs: ttlSweepEveryMs, run: sweepSlice }, log);

    const drainQueues = (timeoutMs = DRAIN_TIMEOUT_MS) => drain(sqs, running, timeoutMs);
    let stopped: Promise<void> | undefined;
    return {
      baseUrl: `${appOrigin}${API_BASE_PATH}`,
      outboxDir,
      dataDir,
      stop: () => (stopped ??= shutDown(running, log)),
      drainQueues,
      runSchedule,
      sweepExpired,
      invoke: (kind, id, event) => invoke(functionFor(catalog, kind, id), event),
      environment: env,
    };
  } catch (err) {
    await shutDown(running, log);
    throw err;
  }
}

/** What the handlers read from the environment (shared/config.ts, the AWS SDK clients, the queue adapter). */
function handlerEnvironment(
  local: { dynamoDb: LocalDynamoDb; sqs: LocalSqs; signingSeed: string; outboxDir: string; appOrigin: string },
  queues: LocalQueue[],
): Record<string, string> {
  return {
    TABLE_NAME,
    AWS_REGION: LOCAL_ACCOUNT.region,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: local.dynamoDb.endpoint,
    AWS_ENDPOINT_URL_SQS: local.sqs.endpoint,
    ...Object.fromEntries(queues.map((q) => [queueUrlEnv(q.def.id), q.url])),
    SIGNING_SEED: local.signingSeed,
    MAIL_TRANSPORT: 'outbox',
    SMS_TRANSPORT: 'outbox',
    OUTBOX_DIR: local.outboxDir,
    PUBLIC_APP_URL: local.appOrigin,
    JWT_ISSUER,
    // One local worker, no function timeout to outlast: the final purge sweep need not wait minutes.
    PURGE_SWEEP_DELAY_SECONDS: '1',
    // Tracing is off outside Lambda, yet the X-Ray SDK's automatic mode would still hook every promise
    // (cls-hooked's async hook with destroy tracking), a cost in CPU and GC on every await.
    AWS_XRAY_MANUAL_MODE: 'true',
  };
}

async function mkdirp(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  return dir;
}

async function runJob(catalog: Catalog, invoke: Invoke, scheduleId: string): Promise<void> {
  const schedule = catalog.schedules.find((s) => s.id === scheduleId);
  if (!schedule) throw new Error(`no schedule ${scheduleId} in the catalog`);
  await invoke(jobFunction(schedule), scheduledEvent(schedule));
}

function startTimers(
  timers: Timers,
  catalog: Catalog,
  runSchedule: (id: string) => Promise<void>,
  sweep: { everyMs: number; run: () => Promise<number> } | undefined,
  log: Log,
) {
  for (const { id, everyMinutes } of catalog.schedules) {
    timers.every(everyMinutes * 60_000, () => runSchedule(id).catch((err) => log(`[schedule ${id}] failed: ${errorText(err)}`)));
  }
  if (!sweep) return;
  timers.every(sweep.everyMs, () =>
    sweep.run().then(
      (deleted) => deleted > 0 && log(`[ttl] deleted ${deleted} expired item(s)`),
      (err) => log(`[ttl] sweep failed: ${errorText(err)}`),
    ),
  );
}

/**
 * Resolves once no queue holds a message waiting or in flight, nor a delayed one unless `delayed` is
 * false; rejects after `timeoutMs`.
 */
async function drain(sqs: LocalSqs, running: Running, timeoutMs: number, { delayed = true } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // Empty twice in a row: a consumer may have sent to a queue that was looked at before its own.
  for (let emptyChecks = 0; ; ) {
    for (const poller of running.pollers) poller.wake();
    const counts = await Promise.all(running.queues.map((q) => queueCounts(sqs.client, q.url)));
    const busy = running.queues.filter((_, i) => counts[i]!.waiting + counts[i]!.inFlight + (delayed ? counts[i]!.delayed : 0) > 0).map((q) => q.def.id);
    emptyChecks = busy.length === 0 ? emptyChecks + 1 : 0;
    if (emptyChecks === 2) return;
    if (busy.length > 0 && Date.now() >= deadline) {
      throw new Error(`queue(s) ${busy.join(', ')} still hold messages after ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, DRAIN_CHECK_MS));
  }
}

/** How many delayed messages (a large session's refresh, a purge's last sweep) the queues hold. */
async function delayedMessages(sqs: LocalSqs, running: Running): Promise<number> {
  const counts = await Promise.all(running.queues.map((q) => queueCounts(sqs.client, q.url)));
  return counts.reduce((sum, c) => sum + c.delayed, 0);
}

/** No new work first, then let the work in hand finish, then stop the backing services. */
async function shutDown(running: Running, log: Log): Promise<void> {
  await running.api?.shutdown();
  await running.timers.stop();
  if (running.sqs) {
    // Messages not yet due are not waited for (a large session's refresh is due up to 15 minutes on).
    // Kept on disk with a data directory: the next start delivers what is left.
    const kept = running.dataDir ? 'kept for the next start' : 'dropped with the in-memory queues';
    try {
      await drain(running.sqs, running, DRAIN_TIMEOUT_MS, { delayed: false });
      const delayed = await delayedMessages(running.sqs, running);
      if (delayed > 0) log(`[queues] ${delayed} delayed message(s) not yet due, ${kept}`);
    } catch (err) {
      log(`[queues] not drained before stopping (${kept}): ${errorText(err)}`);
    }
  }
  await Promise.all(running.pollers.map((p) => p.stop()));
  await running.sqs?.stop();
  await running.lake?.stop();
  await running.dynamoDb?.stop();
  await running.mappingReserve?.close();
  await running.unlockDataDir?.();
  if (running.temporaryOutbox) await rm(running.temporaryOutbox, { recursive: true, force: true });
}
