// The local runtime as `npm start` runs it (a data directory on disk, the TTL sweep on), in a process
// of its own so that its memory is measured alone. Started by scenario.ts; answers over IPC.
import '../../support/env.ts';
import { readFile } from 'node:fs/promises';
import { startTestService } from '../../support/service.ts';
import { exitWithParent } from '../child.ts';
import { signUp } from '../service.ts';

export type MemoryControl = { type: 'sample' } | { type: 'drain'; timeoutMs: number } | { type: 'stop' };
export type MemoryMessage =
  | { type: 'ready'; baseUrl: string; apiKey: string }
  | ({ type: 'sample'; rssBytes: number; heapUsedBytes: number; externalBytes: number; consumerFailures: number } & MappedMemory)
  | { type: 'drained' }
  | { type: 'failed'; message: string };

const CONSUMER_FAILURE = /reported as failed|consumer threw|dead-letter/;
exitWithParent();

const send = (message: MemoryMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

async function main(dataDir: string): Promise<void> {
  let consumerFailures = 0;
  const service = await startTestService({
    dataDir,
    env: { RATE_LIMITS: JSON.stringify({ auth: 1000, strict: 1000, ingestion: 1_000_000, standard: 100_000 }) },
    log: (line) => {
      if (CONSUMER_FAILURE.test(line)) consumerFailures++;
    },
  });
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
        const { rss, heapUsed, external } = process.memoryUsage();
        await send({ type: 'sample', rssBytes: rss, ...(await mappedMemory()), heapUsedBytes: heapUsed, externalBytes: external, consumerFailures });
      }
    }
  } finally {
    await service.stop();
  }
}

/** Parts of the RSS by what is mapped (Linux's /proc/self/smaps; all 0 elsewhere). */
export interface MappedMemory {
  /**
   * Pages of LevelDB's table files, dynalite's and the local queues': LevelDB maps the table files it
   * holds open, pages the kernel can drop and read again.
   */
  tableFileBytes: number;
  /** How many table files are mapped. */
  tableFiles: number;
  /** Pages of every other mapped file: the code of Node.js, DuckDB and the other native modules. */
  otherFileBytes: number;
  /**
   * Anonymous mappings of 256 KB: V8's regular heap pages, of every thread's heap (tsx's loader
   * thread among them). V8's code pages and large objects are mapped otherwise and are in `restBytes`.
   */
  v8PageBytes: number;
  /** Every other page: native allocators' memory (glibc's arenas, DuckDB's), thread stacks, V8's other pages. */
  restBytes: number;
}

type MemoryPart = Exclude<keyof MappedMemory, 'tableFiles'>;

/** A mapping's header line, `start-end perms offset dev inode [path]`; anonymous mappings have no path. */
const SMAPS_MAPPING = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+ *(.*?)(?: \(deleted\))?$/;
const V8_PAGE_BYTES = 256 * 1024;

async function mappedMemory(): Promise<MappedMemory> {
  const memory: MappedMemory = { tableFileBytes: 0, tableFiles: 0, otherFileBytes: 0, v8PageBytes: 0, restBytes: 0 };
  const smaps = await readFile('/proc/self/smaps', 'utf8').catch(() => '');
  let part: MemoryPart = 'restBytes';
  for (const line of smaps.split('\n')) {
    const mapping = SMAPS_MAPPING.exec(line);
    if (mapping) {
      const [, start = '', end = '', path = ''] = mapping;
      const anonymousV8Page = path === '' && Number.parseInt(end, 16) - Number.parseInt(start, 16) === V8_PAGE_BYTES;
      part = path.endsWith('.ldb') ? 'tableFileBytes' : path.startsWith('/') ? 'otherFileBytes' : anonymousV8Page ? 'v8PageBytes' : 'restBytes';
      if (part === 'tableFileBytes') memory.tableFiles++;
    } else if (line.startsWith('Rss:')) {
      memory[part] += Number(/(\d+) kB/.exec(line)?.[1] ?? 0) * 1024;
    }
  }
  return memory;
}

process.once('disconnect', () => process.exit(1));
main(process.argv[2]!).then(
  () => process.exit(0),
  async (err: unknown) => {
    await send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  },
);
