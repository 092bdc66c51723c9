import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { API_BASE_PATH, catalog as serviceCatalog, queueUrlEnv, type Catalog } from '../../shared/catalog.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { ensureTable, localTableName, startDynamoDb, sweepExpiredItems, type LocalDynamoDb } from './dynamodb.ts';
import { createApiServer, type ApiServer } from './http-server.ts';
import { startLocalLake, type LocalLakeService } from './lake.ts';
import {
  createInvoker,
  functionFor,
  jobFunction,
  workerFunction,
  type FunctionKind,
  type Invoke,
  type LoadModule,
} from './lambda.ts';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS } from './local-account.ts';
import { errorText, type Log } from './log.ts';
import { startQueuePoller, type QueuePoller } from './queue-poller.ts';
import { createRouter } from './router.ts';
import { createTimers, scheduledEvent, type Timers } from './schedules.ts';
import { listen, origin } from './servers.ts';
import { loadSigningSeed } from './signing-seed.ts';
import { createQueue, isQueueEmpty, startSqs, type LocalQueue, type LocalSqs } from './sqs.ts';

export interface LocalServiceOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Where the table, the outbox and the signing seed live; everything in memory when absent. */
  dataDir?: string;
  /** Environment for the handlers, applied over the runtime's own (e.g. RATE_LIMITS). */
  env?: Record<string, string>;
  /** Routes, queues and schedules to serve (default: the service's catalog). */
  catalog?: Catalog;
  /** Imports a handler module by repository path (default: a dynamic import of the repository file). */
  loadModule?: LoadModule;
  log?: Log;
  /**
   * How often expired items are swept off the table, in this thread (dynalite has no TTL): every
   * minute by default; `false` never, for benchmarks, whose timings a sweep of a large table spoils.
   */
  ttlSweepEveryMs?: number | false;
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
  /** Deletes the expired items now (dynalite has no TTL) and the expired export files (S3's lifecycle on AWS); resolves with how many. */
  sweepExpired(): Promise<number>;
  /** Invokes one function with the given event, as Lambda would; resolves with its result. */
  invoke(kind: FunctionKind, id: string, event: unknown): Promise<unknown>;
  /** The environment the handlers run with (table, local endpoints, queue URLs, signing seed). */
  environment: Readonly<Record<string, string>>;
}

const TABLE_PREFIX = 'aos-local';
const TABLE_NAME = localTableName(TABLE_PREFIX);
const JWT_ISSUER = 'urn:aos:local';
const DEFAULT_SWEEP_EVERY_MS = 60_000;
const DRAIN_TIMEOUT_MS = 10_000;
const DRAIN_CHECK_MS = 25;

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const importFromRepo: LoadModule = (modulePath) => import(pathToFileURL(join(REPO_ROOT, modulePath)).href);

/** What has been started, so that stop() (and a failed start) shuts down exactly that. */
interface Running {
  unlockDataDir?: () => Promise<void>;
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
 * Gateway's event format, dynalite for DynamoDB, DuckDB for the trace lake, local-aws-sqs with pollers
 * for the queue consumers, timers for the schedules and the TTL sweep, and an outbox directory for
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
  try {
    if (dataDir) running.unlockDataDir = await lockDataDir(dataDir);
    const dynamoDb = (running.dynamoDb = await startDynamoDb(dataDir && join(dataDir, 'dynamodb')));
    await ensureTable(dynamoDb.client, TABLE_NAME, TABLE_PREFIX);
    const lake = (running.lake = await startLocalLake(dataDir));
    const sqs = (running.sqs = await startSqs());
    for (const def of catalog.queues) running.queues.push(await createQueue(sqs.client, TABLE_NAME, def));
    const signingSeed = await loadSigningSeed(dataDir);
    const outboxDir = dataDir
      ? await mkdirp(join(dataDir, 'outbox'))
      : (running.temporaryOutbox = await mkdtemp(join(tmpdir(), 'aos-outbox-')));

    const invoke = createInvoker(options.loadModule ?? importFromRepo);
    const api = (running.api = createApiServer(createRouter(catalog), invoke, log));
    const appOrigin = origin(host, await listen(api.server, port, host));
    // Synchronously after listen resolves, so before any request can load a handler.
    const env = { ...handlerEnvironment({ dynamoDb, sqs, signingSeed, outboxDir, appOrigin }, running.queues), ...lake.environment };
    Object.assign(process.env, env, options.env);

    running.pollers = running.queues.map((q) =>
      startQueuePoller(sqs.client, q, (event) => invoke(workerFunction(q.def), event), log),
    );
    sqs.onSend(() => running.pollers.forEach((p) => p.wake()));
    const runSchedule = (id: string) => runJob(catalog, invoke, id);
    const sweepExpired = async () => (await lake.sweepExports(Date.now())) + (await sweepExpiredItems(dynamoDb.client, TABLE_NAME));
    startTimers(running.timers, catalog, runSchedule, ttlSweepEveryMs === false ? undefined : { everyMs: ttlSweepEveryMs, run: sweepExpired }, log);

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
    timers.every(everyMinutes * 60_000, () =>
      runSchedule(id).catch((err) => log(`[schedule ${id}] failed: ${errorText(err)}`)),
    );
  }
  if (!sweep) return;
  timers.every(sweep.everyMs, () =>
    sweep.run().then(
      (deleted) => deleted > 0 && log(`[ttl] deleted ${deleted} expired item(s)`),
      (err) => log(`[ttl] sweep failed: ${errorText(err)}`),
    ),
  );
}

async function drain(sqs: LocalSqs, running: Running, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // Empty twice in a row: a consumer may have sent to a queue that was looked at before its own.
  for (let emptyChecks = 0; ; ) {
    running.pollers.forEach((p) => p.wake());
    const empty = await Promise.all(running.queues.map((q) => isQueueEmpty(sqs.client, q.url)));
    const busy = running.queues.filter((_, i) => !empty[i]).map((q) => q.def.id);
    emptyChecks = busy.length === 0 ? emptyChecks + 1 : 0;
    if (emptyChecks === 2) return;
    if (busy.length > 0 && Date.now() >= deadline) {
      throw new Error(`queue(s) ${busy.join(', ')} still hold messages after ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, DRAIN_CHECK_MS));
  }
}

/** No new work first, then let the work in hand finish, then stop the backing services. */
async function shutDown(running: Running, log: Log): Promise<void> {
  await running.api?.shutdown();
  await running.timers.stop();
  if (running.sqs) {
    try {
      await drain(running.sqs, running, DRAIN_TIMEOUT_MS);
    } catch (err) {
      // The local queues live in memory: what is left now is lost.
      log(`[queues] not drained before stopping: ${errorText(err)}`);
    }
  }
  await Promise.all(running.pollers.map((p) => p.stop()));
  await running.sqs?.stop();
  await running.lake?.stop();
  await running.dynamoDb?.stop();
  await running.unlockDataDir?.();
  if (running.temporaryOutbox) await rm(running.temporaryOutbox, { recursive: true, force: true });
}
