import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { mapConcurrently } from '#shared/domain/concurrency.ts';
import { PLANS } from '#shared/domain/plans/plans.ts';
import { MAX_SPANS_PER_REQUEST } from '#shared/schemas/spans.ts';
import { buildLocalService } from '../../../infra/local/build-service.js';
import { type SpanBatch, seededRandom, spanBatches } from '../ingest/traces.ts';
import { BenchFailure, type Scenario, type ScenarioResult, UsageError } from '../scenario.ts';
import { START_ENV, START_FLAGS } from '../start-flags.ts';
import { round } from '../stats.ts';
import type { MemoryControl, MemoryMessage } from './service-process.ts';

const SERVICE_PROGRAM = 'test/bench/memory/service-process.ts';
const SEED = 20_261_124;
/** What the local service may take after a million spans (issue 21). */
const RSS_TARGET_MB = 400;
/** How long the service is left without requests once everything is stored before its idle sample. */
const IDLE_SECONDS = 30;
const RSS_TARGET_SPANS = 1_000_000;
/** Requests generated at a time: the generator's memory stays small whatever the run's size. */
const CHUNK_REQUESTS = 200;
const DRAIN_TIMEOUT_MS = 30 * 60_000;
const MB = 1024 * 1024;

export const memoryScenario: Scenario = {
  name: 'memory',
  summary:
    'the local service (npm start: dynalite and the queues on disk, the TTL sweep on) in a process of its own, its RSS read every second and sampled in full while it ingests and stores spans',
  flags: {
    spans: {
      default: 1_000_000,
      max: PLANS.pro.features.spans,
      description: 'spans sent (in requests of --spans-per-request), all stored before the last sample',
    },
    'spans-per-request': { default: 100, max: MAX_SPANS_PER_REQUEST, description: 'spans per request, as whole traces of 4–6 spans' },
    concurrency: { default: 8, description: 'clients with a request in flight' },
    'drain-every': {
      default: 100_000,
      description:
        'spans sent before waiting until everything sent is stored: the clients send far faster than the worker stores, and a laptop never sends a million spans in minutes',
    },
  },
  run: (flags, progress) =>
    runMemory(
      { spans: flags['spans']!, spansPerRequest: flags['spans-per-request']!, concurrency: flags['concurrency']!, drainEvery: flags['drain-every']! },
      flags,
      progress,
    ),
};

/** A line of the service's log that the run's own log repeats: a warning or worse (Powertools' JSON lines). */
const SERVICE_WARNING = /"level":"(WARN|ERROR|CRITICAL)"/;

/**
 * The service built as `npm start` builds it, run without tsx's loader and with the Node.js flags and
 * the environment `npm start` gives it (its heap limits, glibc's arenas), read from package.json's
 * start script.
 */
async function startService(dataDir: string, progress: (line: string) => void) {
  const [program] = (await buildLocalService([SERVICE_PROGRAM])).entries;
  const child = fork(program!, [dataDir], { execArgv: [...START_FLAGS], env: { ...process.env, ...START_ENV }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  // The service logs as `npm start` does; its warnings (a checkpoint DuckDB refused, say) go into the run's log.
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (SERVICE_WARNING.test(line)) progress(`service: ${line.slice(0, 1000)}`);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ask = <T extends MemoryMessage['type']>(control: MemoryControl | undefined, type: T) =>
    new Promise<Extract<MemoryMessage, { type: T }>>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new BenchFailure(`the service exited (code ${code}) before answering "${type}"`));
      child.once('exit', onExit);
      child.once('message', (message: MemoryMessage) => {
        child.off('exit', onExit);
        if (message.type === type) resolve(message as Extract<MemoryMessage, { type: T }>);
        else reject(new BenchFailure(message.type === 'failed' ? message.message : `expected "${type}", got "${message.type}"`));
      });
      if (control) (child as ChildProcess).send(control);
    });
  return { child, exited, ask };
}

async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name))).size;
  }
  return total;
}

/** Sends one batch; a connection the server closed while idle is retried (ingestion is idempotent). */
async function post(baseUrl: string, apiKey: string, batch: SpanBatch, attempt = 1): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/spans`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: batch.body });
  } catch (err) {
    if (attempt === 3) throw new BenchFailure(`POST /spans failed: ${(err as Error).message} (${String((err as { cause?: unknown }).cause)})`);
    return post(baseUrl, apiKey, batch, attempt + 1);
  }
  const text = await res.text();
  if (res.status !== 202) throw new BenchFailure(`POST /spans answered ${res.status}: ${text.slice(0, 300)}`);
}

interface MemoryParameters {
  spans: number;
  spansPerRequest: number;
  concurrency: number;
  drainEvery: number;
}

async function runMemory(
  { spans, spansPerRequest, concurrency, drainEvery }: MemoryParameters,
  flags: Record<string, number>,
  progress: (line: string) => void,
): Promise<ScenarioResult> {
  if (spans < spansPerRequest) throw new UsageError(`--spans ${spans} is fewer than --spans-per-request ${spansPerRequest}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'aos-bench-memory-'));
  const service = await startService(dataDir, progress);
  const samples: {
    spans: number;
    rssMb: number;
    tableFilesMb: number;
    tableFiles: number;
    otherFilesMb: number;
    v8PagesMb: number;
    restMb: number;
    lakeMb: number;
    lakeByTag: string;
    heapMb: number;
    externalMb: number;
    mainYoungMb: number;
    mainOldMb: number;
    mainLargeMb: number;
  }[] = [];
  /** The highest RSS between samples (read every second by the service); without mapped files and DuckDB's buffers when its split was read. */
  const peaks: { spans: number; rssMb: number; unmappedMb?: number; lakeMb?: number }[] = [];
  try {
    const { baseUrl, apiKey } = await service.ask(undefined, 'ready');
    const startedAt = Date.now();
    const secondsOf = (atMs: number) => round((atMs - startedAt) / 1000, 0);
    const sample = async (sent: number, leaveLakeAlone = false) => {
      const s = await service.ask({ type: 'sample', leaveLakeAlone }, 'sample');
      if (s.consumerFailures > 0) throw new BenchFailure(`${s.consumerFailures} queue message(s) failed`);
      let peakText = '';
      if (s.peak) {
        const { rssBytes, atMs, split } = s.peak;
        const rssMb = round(rssBytes / MB, 0);
        peaks.push({
          spans: sent,
          rssMb,
          ...(split ? { unmappedMb: round((rssBytes - split.tableFileBytes - split.otherFileBytes) / MB, 0), lakeMb: round(split.lakeBytes / MB, 0) } : {}),
        });
        const splitText = split
          ? `its split read at ${secondsOf(split.atMs)} s: RSS ${round(
              (split.tableFileBytes + split.otherFileBytes + split.v8PageBytes + split.restBytes) / MB,
              0,
            )} MB, V8's regular pages ${round(split.v8PageBytes / MB, 0)} MB, the rest ${round(split.restBytes / MB, 0)} MB; DuckDB's buffer manager ${round(split.lakeBytes / MB, 0)} MB${split.lakeByTag ? `: ${split.lakeByTag}` : ''}`
          : 'its split not read';
        peakText = `; since the last sample the RSS peaked at ${rssMb} MB, at ${secondsOf(atMs)} s (${splitText})`;
      }
      samples.push({
        spans: sent,
        rssMb: round(s.rssBytes / MB, 0),
        tableFilesMb: round(s.tableFileBytes / MB, 0),
        tableFiles: s.tableFiles,
        otherFilesMb: round(s.otherFileBytes / MB, 0),
        v8PagesMb: round(s.v8PageBytes / MB, 0),
        restMb: round(s.restBytes / MB, 0),
        lakeMb: round(s.lakeBytes / MB, 0),
        lakeByTag: s.lakeByTag,
        heapMb: round(s.heapUsedBytes / MB, 0),
        externalMb: round(s.externalBytes / MB, 0),
        mainYoungMb: round(s.mainHeap.youngBytes / MB, 0),
        mainOldMb: round(s.mainHeap.oldBytes / MB, 0),
        mainLargeMb: round(s.mainHeap.largeObjectBytes / MB, 0),
      });
      return { ...samples.at(-1)!, seconds: secondsOf(Date.now()), peakText };
    };
    const first = await sample(0);
    progress(`started: RSS ${first.rssMb} MB, heap ${first.heapMb} MB`);
    const random = seededRandom(SEED);
    const requests = Math.floor(spans / spansPerRequest);
    let sent = 0;
    for (let done = 0; done < requests; done += CHUNK_REQUESTS) {
      const batches = spanBatches(random, Math.min(CHUNK_REQUESTS, requests - done), spansPerRequest, Date.now(), 0.02);
      await mapConcurrently(batches, concurrency, (batch) => post(baseUrl, apiKey, batch));
      const before = sent;
      sent += batches.reduce((n, b) => n + b.spanCount, 0);
      if (Math.floor(sent / drainEvery) > Math.floor(before / drainEvery)) await service.ask({ type: 'drain', timeoutMs: DRAIN_TIMEOUT_MS }, 'drained');
      const s = await sample(sent);
      progress(
        `${sent.toLocaleString('en-US')} spans accepted, at ${s.seconds} s: RSS ${s.rssMb} MB (LevelDB's table files ${s.tableFilesMb} MB in ${s.tableFiles} files, other files ${s.otherFilesMb} MB, V8's regular pages ${s.v8PagesMb} MB, the rest ${s.restMb} MB; DuckDB's buffer manager ${s.lakeMb} MB by its own count${s.lakeByTag ? `: ${s.lakeByTag}` : ''}), heap ${s.heapMb} MB (the main thread's V8 heap resident: young ${s.mainYoungMb} MB, old ${s.mainOldMb} MB, large objects ${s.mainLargeMb} MB), buffers ${s.externalMb} MB${s.peakText}`,
      );
    }
    await service.ask({ type: 'drain', timeoutMs: DRAIN_TIMEOUT_MS }, 'drained');
    const seconds = (Date.now() - startedAt) / 1000;
    const last = await sample(sent, true);
    // What the service holds while it waits for more, a laptop's usual state: the lake is reopened once idle (IDLE_REOPEN_MS).
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idle = await sample(sent);
    // From the start to the idle sample: every sample, and the highest RSS between each two.
    const highest = [...samples, ...peaks].reduce((a, b) => (b.rssMb > a.rssMb ? b : a));
    const peak = highest.rssMb;
    service.child.send({ type: 'stop' } satisfies MemoryControl);
    await service.exited;
    const onDiskMb = round((await directorySize(dataDir)) / MB, 0);
    progress(
      `all stored after ${round(seconds, 0)} s; RSS ${last.rssMb} MB (peak ${peak} MB, ${idle.rssMb} MB ${IDLE_SECONDS} s later), ${onDiskMb} MB on disk${last.peakText}${idle.peakText.replace('since the last sample', 'while idle')}`,
    );
    return {
      parameters: flags,
      figures: [
        { key: 'spans', label: 'spans ingested and stored', value: sent },
        // RSS covers every thread of the process (dynalite's included); the heap figure is the main thread's.
        { key: 'rssStartMb', label: 'RSS at start', value: samples[0]!.rssMb, unit: 'MB' },
        { key: 'rssPeakMb', label: 'RSS peak (read every second, from the start to the idle sample)', value: peak, unit: 'MB' },
        { key: 'rssPeakSpans', label: 'spans accepted by the sample that followed the peak', value: highest.spans },
        { key: 'rssEndMb', label: 'RSS once everything is stored', value: last.rssMb, unit: 'MB' },
        {
          key: 'tableFilesEndMb',
          label: "of which pages of LevelDB's table files (mapped; the kernel drops them at will)",
          value: last.tableFilesMb,
          unit: 'MB',
        },
        {
          key: 'otherFilesEndMb',
          label: 'of which pages of other mapped files (the code of Node.js and the native modules)',
          value: last.otherFilesMb,
          unit: 'MB',
        },
        { key: 'v8PagesEndMb', label: "of which V8's regular heap pages (256 KB mappings, every thread's heap)", value: last.v8PagesMb, unit: 'MB' },
        { key: 'restEndMb', label: "of which the rest (native allocators' memory, thread stacks, V8's other pages)", value: last.restMb, unit: 'MB' },
        { key: 'lakeEndMb', label: "DuckDB's buffer manager then (the lake's, by DuckDB's count: duckdb_memory())", value: last.lakeMb, unit: 'MB' },
        {
          key: 'lakePeakMb',
          label: "DuckDB's buffer manager, the highest read (at each sample, and as each new RSS peak was seen)",
          value: Math.max(...samples.map((s) => s.lakeMb), ...peaks.map((p) => p.lakeMb ?? 0)),
          unit: 'MB',
        },
        {
          key: 'rssAnonPeakMb',
          label: 'RSS peak without mapped files',
          value: Math.max(...samples.map((s) => s.rssMb - s.tableFilesMb - s.otherFilesMb), ...peaks.map((p) => p.unmappedMb ?? 0)),
          unit: 'MB',
        },
        { key: 'rssIdleMb', label: `RSS ${IDLE_SECONDS} s later, without a request meanwhile`, value: idle.rssMb, unit: 'MB' },
        { key: 'v8PagesIdleMb', label: "of which V8's regular heap pages", value: idle.v8PagesMb, unit: 'MB' },
        { key: 'restIdleMb', label: 'of which the rest', value: idle.restMb, unit: 'MB' },
        { key: 'lakeIdleMb', label: "DuckDB's buffer manager then", value: idle.lakeMb, unit: 'MB' },
        { key: 'heapEndMb', label: "JS heap in use then (the main thread's, without dynalite's thread)", value: last.heapMb, unit: 'MB' },
        { key: 'externalEndMb', label: 'buffers outside the JS heap then', value: last.externalMb, unit: 'MB' },
        { key: 'onDiskMb', label: 'data directory on disk', value: onDiskMb, unit: 'MB' },
        { key: 'spansPerSecond', label: 'spans stored per second, end to end', value: round(sent / seconds, 0) },
        {
          key: 'rssWithinTarget',
          label:
            sent >= RSS_TARGET_SPANS
              ? `RSS ≤ ${RSS_TARGET_MB} MB throughout`
              : `RSS ≤ ${RSS_TARGET_MB} MB throughout this shorter run (the target is set at ${RSS_TARGET_SPANS.toLocaleString('en-US')} spans)`,
          value: peak <= RSS_TARGET_MB,
        },
      ],
      failures: peak <= RSS_TARGET_MB ? [] : [`RSS reached ${peak} MB, over the ${RSS_TARGET_MB} MB target`],
    };
  } finally {
    if (service.child.exitCode === null) service.child.kill();
    await service.exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}
