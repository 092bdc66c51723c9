/** Parts of a process's RSS by what is mapped, from the text of its /proc/<pid>/smaps. */
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

export function splitSmaps(smaps: string): MappedMemory {
  const memory: MappedMemory = { tableFileBytes: 0, tableFiles: 0, otherFileBytes: 0, v8PageBytes: 0, restBytes: 0 };
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
