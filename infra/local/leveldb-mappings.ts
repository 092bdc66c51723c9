import { rm } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';

/**
 * LevelDB, as classic-level builds it (1.20), maps every table file it opens into memory whole, up to
 * 1,000 files a process (`MaxMmaps` in its env_posix.cc: a compiled-in limit, shared by every store of
 * the process, with no option to change it), and reads any further file with `pread`. Mapped pages
 * count in the process's RSS: at a million spans, 270 MB of the local service's 807 MB were dynalite's
 * table files (docs/local-runtime.md, "Memory"). The same pages read with `pread` stay in the kernel's
 * page cache, outside the process.
 *
 * So before dynalite and the queues open their stores, a store of its own takes those 1,000 mappings:
 * 1,050 table files of one small key each (4.5 MB on disk, built once in about a second, opened in
 * about 60 ms), each opened by reading it once and kept open by LevelDB's table cache. Every table file
 * opened after it is read with `pread`. LevelDB still keeps up to `max_open_files` - 10 of a store's
 * files open (now as file descriptors), so reads open no more files than before; the earlier try, a
 * store opened with fewer open files (74), slowed every list at a million traces because it did.
 *
 * One per process: the limit is the process's, and a second reserve would take nothing. None on
 * Windows, where classic-level's LevelDB reads its files through handles and maps none, nor on 32-bit
 * systems, where its limit is 0.
 */
/** A margin over the 1,000 mappings: the files past them are read like any other. */
const TABLE_FILES = 1_050;
/** LevelDB's least write buffer: a put larger than it ends its table file, so each key makes one file. */
const WRITE_BUFFER_BYTES = 64 * 1024;
/** A value just over the write buffer, compressible, so that each file holds one key in a few KB. */
const FILLER = 'x'.repeat(WRITE_BUFFER_BYTES + 1);
/** Put last: its presence says the files were all written (a start killed while building builds again). */
const BUILT_KEY = '~built';
/**
 * Room in the table cache for every file, so that none is closed (and its mapping given back): LevelDB
 * splits the cache into 16 shards of an equal share each, by a hash of the file's number, and with room
 * for 1,150 files a shard overflowed (999 mappings held); with four times the files none does.
 */
const OPEN_FILES = 4 * TABLE_FILES;

export interface MappingReserve {
  close(): Promise<void>;
}

let reserved = false;
/** LevelDB maps table files on 64-bit systems but Windows (32-bit builds map none). */
const MAPS_TABLE_FILES = process.platform !== 'win32' && !['ia32', 'arm'].includes(process.arch);

/**
 * Opens the reserve under `dir`, building it the first time (and afresh when it cannot be opened or
 * its building was cut short), unless this process holds one already; resolves once its files are
 * open. Call it before any other store of the process opens.
 */
export async function reserveLevelDbMappings(dir: string): Promise<MappingReserve> {
  if (reserved || !MAPS_TABLE_FILES) return { close: async () => {} };
  reserved = true;
  try {
    const db = (await openBuilt(dir)) ?? (await build(dir));
    // Reading each file once opens it, and the table cache keeps it open with its mapping.
    for await (const _ of db.keys()) {
      // the reading is what opens the files
    }
    return {
      close: async () => {
        await db.close();
        reserved = false;
      },
    };
  } catch (err) {
    reserved = false;
    throw err;
  }
}

const openStore = async (dir: string) => {
  const db = new ClassicLevel<string, string>(dir, { writeBufferSize: WRITE_BUFFER_BYTES, maxOpenFiles: OPEN_FILES });
  await db.open();
  return db;
};

/** The reserve as built before, or undefined when there is none whole. */
async function openBuilt(dir: string): Promise<ClassicLevel<string, string> | undefined> {
  const db = await openStore(dir).catch(() => undefined);
  if (db && (await db.get(BUILT_KEY).catch(() => undefined)) !== undefined) return db;
  await db?.close().catch(() => undefined);
  return undefined;
}

async function build(dir: string): Promise<ClassicLevel<string, string>> {
  await rm(dir, { recursive: true, force: true });
  const db = await openStore(dir);
  for (let i = 0; i < TABLE_FILES; i++) await db.put(`k${String(i).padStart(6, '0')}`, FILLER);
  await db.put(BUILT_KEY, '1');
  return db;
}
