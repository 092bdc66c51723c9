import { createHash } from 'node:crypto';
import { copyFile, link, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIST_LAYOUT } from '#shared/domain/maintenance/reindex.ts';
import { runIsolated } from '../analytics/isolated.ts';
import type { SeededData, SeedRequest } from './seed.ts';

const CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../.bench-data/console');
const SEEDED_FILE = 'seeded.json';
const DAY_MS = 86_400_000;
/**
 * A seeded directory older than this is seeded again: its newest traces are that old, so the first
 * page the console shows is no longer the tenant's latest hour (what it reads is the same).
 */
export const MAX_CACHE_AGE_DAYS = 3;
/** What the seeded items are made by: a change to any of them, or to the list layout, is seeded anew rather than reused. */
const SEEDING_SOURCES = ['./seed.ts', '../reads/tenant.ts', '../analytics/seed.ts', '../analytics/items.ts', '../analytics/traces.ts'];

export interface ConsoleData extends SeededData {
  /** A copy of the seeded directory for this run alone: the service changes what it opens (sign-ins, LevelDB's compactions). */
  dir: string;
  /** The seeded directory under .bench-data/ was reused (else it was seeded by this run). */
  reused: boolean;
  discard(): Promise<void>;
}

/**
 * The tenants' data directory: seeded once into .bench-data/console/ (in a process of its own, whose
 * service is stopped before the timed one starts), reused while its sources and the store's list
 * layout (LIST_LAYOUT, which the re-indexing job follows) stay the same, and copied for each run.
 */
export async function consoleData(plan: Omit<SeedRequest, 'dir'>, progress: (line: string) => void): Promise<ConsoleData> {
  const fingerprint = await seedingFingerprint();
  const seeded = join(CACHE_DIR, `${fingerprint}-${plan.sizes.join('-')}-${plan.agents}`);
  await mkdir(CACHE_DIR, { recursive: true });
  // A seeding of other sources is gigabytes that no run can use again; a run's copy is left only by a run that was killed.
  for (const entry of await readdir(CACHE_DIR)) if (!entry.startsWith(fingerprint)) await rm(join(CACHE_DIR, entry), { recursive: true, force: true });
  let data = await readSeeded(seeded);
  const reused = data !== undefined;
  if (data === undefined) {
    const building = `${seeded}.building`;
    await rm(seeded, { recursive: true, force: true });
    await rm(building, { recursive: true, force: true });
    data = await runIsolated<SeedRequest, SeededData>(new URL('./seed-child.ts', import.meta.url), { ...plan, dir: building }, progress);
    await writeFile(join(building, SEEDED_FILE), JSON.stringify(data));
    await rename(building, seeded);
  } else {
    progress(`reusing ${seeded}, seeded ${new Date(data.seededAtMs).toISOString()}`);
  }
  const dir = await mkdtemp(join(CACHE_DIR, 'run-'));
  await copyTree(seeded, dir);
  return { ...data, dir, reused, discard: () => rm(dir, { recursive: true, force: true }) };
}

async function readSeeded(dir: string): Promise<SeededData | undefined> {
  try {
    const data = JSON.parse(await readFile(join(dir, SEEDED_FILE), 'utf8')) as SeededData;
    return Date.now() - data.seededAtMs < MAX_CACHE_AGE_DAYS * DAY_MS ? data : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * A copy of a data directory, LevelDB's table files (`.ldb`) hard-linked rather than copied: LevelDB
 * never changes a table file once written (a compaction writes new ones and deletes the old), so the
 * copy's compactions leave the original's files as they were; its logs, manifests and the other stores' files are copied.
 */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) await copyTree(source, target);
    else if (entry.name.endsWith('.ldb')) await link(source, target);
    else await copyFile(source, target);
  }
}

async function seedingFingerprint(): Promise<string> {
  const hash = createHash('sha256').update(LIST_LAYOUT);
  // dynalite's version: its LevelDB layout of the table.
  hash.update(createRequire(import.meta.url)('dynalite/package.json').version as string);
  for (const source of SEEDING_SOURCES) hash.update(await readFile(new URL(source, import.meta.url)));
  return hash.digest('hex').slice(0, 12);
}
