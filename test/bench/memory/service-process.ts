// The local runtime as `npm start` runs it (built, a data directory on disk, the TTL sweep on), in a
// process of its own so that its memory is measured alone. Started by scenario.ts from the build of
// this file (infra/local/build-service.js), without tsx's loader; answers over IPC.
import '../../support/env.ts';
import { readFile } from 'node:fs/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { serviceModulesFrom } from '../../../infra/local/runtime.ts';
import { startTestService } from '../../support/service.ts';
import { exitWithParent } from '../child.ts';
import { lakeBuffers } from '../lake-memory.ts';
import { signUp } from '../service.ts';
import { type MappedMemory, splitSmaps } from './smaps.ts';

export type MemoryControl = { type: 'sample'; leaveLakeAlone?: boolean } | { type: 'drain'; timeoutMs: number } | { type: 'stop' };
export type MemoryMessage =
  | { type: 'ready'; baseUrl: string; apiKey: string }
  | ({
      type: 'sample';
      rssBytes: number;
      heapUsedBytes: number;
      externalBytes: number;
      lakeBytes: number;
      lakeByTag: string;
      consumerFailures: number;
      mainHeap: MainHeapSpaces;
      /** The highest RSS read since the last sample (every PEAK_POLL_MS), if above this sample's. */
      peak?: PeakSample;
    } & MappedMemory)
  | { type: 'drained' }
  | { type: 'failed'; message: string };

/** The main thread's V8 heap resident in memory, by kind of space (dynalite's thread's heap is not reachable from here on Node.js 20). */
export interface MainHeapSpaces {
  /** The young generation: new space and its large objects. */
  youngBytes: number;
  /** The old generation's regular pages (old and code space). */
  oldBytes: number;
  /** Large objects of the old generation (a page each, outside the 256 KB pages the RSS split counts as V8's). */
  largeObjectBytes: number;
}

/** The highest RSS between two samples, and its split as read once it was seen (none when no read ended in the same window). */
export type PeakSample = { rssBytes: number; atMs: number; split?: PeakSplit };
/** The RSS's split and DuckDB's buffers, read at `atMs`. */
export type PeakSplit = { atMs: number; lakeBytes: number; lakeByTag: string } & MappedMemory;

/**
 * How often the RSS is read between samples. The samples come as each chunk of requests is accepted,
 * so none falls while the worker stores the spans of a drain, where most of the storing is done.
 */
const PEAK_POLL_MS = 1000;

/**
 * Reads the RSS every PEAK_POLL_MS and keeps the highest since it was last taken, every read counted.
 * When a read is the highest yet, the RSS's split and DuckDB's buffers are read (one such read at a
 * time; if the RSS rose further meanwhile, they are read again), and kept only if the window in which
 * that began has not been taken meanwhile. DuckDB's buffers are read through the lake, which waits
 * for a reopen under way: the split can come some seconds after its peak, and says when.
 */
function watchPeaks(lakePath: string) {
  let window = 0;
  let peak: { rssBytes: number; atMs: number } | undefined;
  let split: { window: number; value: PeakSplit } | undefined;
  let reading: Promise<void> | undefined;
  let readLake = true;
  const readSplit = (forRss: number) => {
    const started = window;
    const lake = readLake
      ? lakeBuffers(lakePath).catch((err: unknown) => ({ bytes: 0, byTag: `not read: ${err instanceof Error ? err.message : String(err)}` }))
      : Promise.resolve({ bytes: 0, byTag: 'not read: the lake is left alone' });
    reading = Promise.all([mappedMemory(), lake])
      .then(([mapped, { bytes, byTag }]) => {
        if (started === window) split = { window: started, value: { ...mapped, atMs: Date.now(), lakeBytes: bytes, lakeByTag: byTag } };
      })
      .finally(() => {
        reading = undefined;
        if (started === window && peak && peak.rssBytes > forRss) readSplit(peak.rssBytes);
      });
  };
  const timer = setInterval(() => {
    const rssBytes = process.memoryUsage.rss();
    if (peak && rssBytes <= peak.rssBytes) return;
    peak = { rssBytes, atMs: Date.now() };
    if (!reading) readSplit(rssBytes);
  }, PEAK_POLL_MS);
  timer.unref();
  return {
    take(): PeakSample | undefined {
      const taken = peak && { ...peak, ...(split?.window === window ? { split: split.value } : {}) };
      window++;
      peak = undefined;
      split = undefined;
      return taken;
    },
    /** From now on DuckDB's buffers are not read between samples: each read is a use of the lake, and would put off its idle reopen. */
    leaveLakeAlone() {
      readLake = false;
    },
    async stop() {
      clearInterval(timer);
      await reading;
    },
  };
}

function mainHeapSpaces(): MainHeapSpaces {
  const committed = Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size]));
  const sum = (...names: string[]) => names.reduce((total, name) => total + (committed[name] ?? 0), 0);
  return {
    youngBytes: sum('new_space', 'new_large_object_space'),
    oldBytes: sum('old_space', 'code_space'),
    largeObjectBytes: sum('large_object_space', 'code_large_object_space'),
  };
}

const CONSUMER_FAILURE = /reported as failed|consumer threw|dead-letter/;
exitWithParent();

const send = (message: MemoryMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

async function main(dataDir: string): Promise<void> {
  let consumerFailures = 0;
  const service = await startTestService({
    dataDir,
    serviceModules: serviceModulesFrom(import.meta.url, '../../../'),
    env: { RATE_LIMITS: JSON.stringify({ auth: 1000, strict: 1000, ingestion: 1_000_000, standard: 100_000 }) },
    log: (line) => {
      if (CONSUMER_FAILURE.test(line)) consumerFailures++;
    },
  });
  const peaks = watchPeaks(service.environment['LAKE_DUCKDB_PATH']!);
  try {
    const account = await signUp(service, 'pro');
    await send({ type: 'ready', baseUrl: service.baseUrl, apiKey: account.apiKey });
    for (;;) {
      const control = await new Promise<MemoryControl>((resolve) => process.once('message', (m) => resolve(m as MemoryControl)));
      if (control.type === 'stop') break;
      if (control.type === 'drain') {
        await service.drainQueues(control.timeoutMs);
        await send({ type: 'drained' });
      } else {
        // The RSS and its split at one moment, before the lake's query allocates anything.
        const { rss, heapUsed, external } = process.memoryUsage();
        const mainHeap = mainHeapSpaces();
        const mapped = await mappedMemory();
        const lake = await lakeBuffers(service.environment['LAKE_DUCKDB_PATH']!);
        const peak = peaks.take();
        if (control.leaveLakeAlone) peaks.leaveLakeAlone();
        await send({
          type: 'sample',
          rssBytes: rss,
          ...mapped,
          heapUsedBytes: heapUsed,
          externalBytes: external,
          lakeBytes: lake.bytes,
          lakeByTag: lake.byTag,
          consumerFailures,
          mainHeap,
          ...(peak && peak.rssBytes > rss ? { peak } : {}),
        });
      }
    }
  } finally {
    await peaks.stop();
    await service.stop();
  }
}

/** The RSS split by what is mapped (Linux's /proc/self/smaps; all 0 elsewhere). */
const mappedMemory = async (): Promise<MappedMemory> => splitSmaps(await readFile('/proc/self/smaps', 'utf8').catch(() => ''));

process.once('disconnect', () => process.exit(1));
main(process.argv[2]!).then(
  () => process.exit(0),
  async (err: unknown) => {
    await send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  },
);
