import { describe, expect, it } from 'vitest';
import { splitSmaps } from '../../bench/memory/smaps.ts';

/** One mapping as /proc/<pid>/smaps shows it: a header line, then fields (only Rss is read). */
const mapping = (start: number, bytes: number, path: string, rssKb: number) =>
  [
    `${start.toString(16)}-${(start + bytes).toString(16)} rw-p 00000000 00:00 ${path ? '1234' : '0'}${path ? `    ${path}` : ' '}`,
    `Size:           ${bytes / 1024} kB`,
    `Rss:            ${rssKb} kB`,
    'Pss:            1 kB',
    'VmFlags: rd wr mr mw me ac sd',
  ].join('\n');

const KB = 1024;
const MB = 1024 * KB;

describe('splitSmaps', () => {
  it('splits the RSS into table files, other files, V8 pages and the rest', () => {
    const smaps = [
      mapping(0x10000000, 2 * MB, '/data/dynamodb/000123.ldb', 300),
      mapping(0x10400000, 2 * MB, '/data/with space/queues/000007.ldb (deleted)', 100),
      mapping(0x10800000, 8 * MB, '/usr/bin/node', 5000),
      mapping(0x11000000, 8 * MB, '/tmp/a b/libduckdb.so', 70),
      mapping(0x12000000, 256 * KB, '', 256),
      mapping(0x12040000, 256 * KB, '', 200),
      mapping(0x12080000, 512 * KB, '', 40),
      mapping(0x13000000, 132 * KB, '[heap]', 9),
      mapping(0x14000000, 256 * KB, '[stack]', 8),
    ].join('\n');

    expect(splitSmaps(smaps)).toEqual({
      tableFileBytes: 400 * KB,
      tableFiles: 2,
      otherFileBytes: 5070 * KB,
      v8PageBytes: 456 * KB,
      restBytes: 57 * KB,
    });
  });

  it('gives zeros for no smaps (a system without /proc)', () => {
    expect(splitSmaps('')).toEqual({ tableFileBytes: 0, tableFiles: 0, otherFileBytes: 0, v8PageBytes: 0, restBytes: 0 });
  });
});
