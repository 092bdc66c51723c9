import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { uncompress } from 'snappyjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '#shared/store/client.ts';
import { createTableInput } from '#shared/store/table.ts';
import { createActiveTable, startDynamoDb } from '../../infra/local/dynamodb.ts';

const ITEM_BYTES = 192 * 1024;
const WRITES = 120;

async function tableFilesBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.endsWith('.ldb')) total += (await stat(join(dir, name))).size;
  return total;
}

/** The last 8 bytes of every LevelDB table file (`kTableMagicNumber`). */
const TABLE_MAGIC = 0xdb4775248b80fb57n;

/** A LevelDB varint at `at`, and where the next field starts. */
function varint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    if (at < 0 || at >= bytes.length) throw new Error(`no varint at ${at} of ${bytes.length} bytes`);
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
}

/** A block's contents as stored at [offset, offset + size), uncompressed (its trailer's first byte: 0 raw, 1 snappy). */
const blockContents = (file: Uint8Array, offset: number, size: number): Uint8Array =>
  file[offset + size] === 1 ? uncompress(file.subarray(offset, offset + size)) : file.subarray(offset, offset + size);

/**
 * The uncompressed size of each data block of a LevelDB table file but its last (LevelDB's table
 * format: the footer's second handle is the index block's, whose entries, one per data block and
 * each a restart point, hold the blocks' handles). Read by hand because classic-level tells nothing
 * of a file's blocks and no library in this project reads the format; only the footer and the index
 * are read, and snappy is snappyjs's.
 */
function dataBlockSizes(file: Uint8Array): number[] {
  if (Buffer.from(file.subarray(-8)).readBigUInt64LE() !== TABLE_MAGIC) throw new Error('not a whole LevelDB table file');
  const footer = file.length - 48;
  const [, afterMetaOffset] = varint(file, footer);
  const [, indexHandle] = varint(file, afterMetaOffset);
  const [indexOffset, afterIndexOffset] = varint(file, indexHandle);
  const [indexSize] = varint(file, afterIndexOffset);
  const index = blockContents(file, indexOffset, indexSize);
  const view = new DataView(index.buffer, index.byteOffset, index.byteLength);
  const entries = view.getUint32(index.length - 4, true);
  const sizes: number[] = [];
  for (let at = 0, i = 0; i < entries; i++) {
    const [, afterShared] = varint(index, at);
    const [keyLength, afterKeyLength] = varint(index, afterShared);
    const [valueLength, valueAt] = varint(index, afterKeyLength);
    const [offset, afterOffset] = varint(index, valueAt + keyLength);
    const [size] = varint(index, afterOffset);
    sizes.push(blockContents(file, offset, size).length);
    at = valueAt + keyLength + valueLength;
  }
  return sizes.slice(0, -1);
}

describe('dynalite on disk', () => {
  let dir: string;
  let db: Db;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aos-dynalite-files-'));
    const local = await startDynamoDb(dir);
    await createActiveTable(local.client, createTableInput('aos-files'));
    db = createDb('aos-files', local.client);
    stop = local.stop;
  });

  afterAll(async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  });

  // Every Query used to leave its LevelDB iterator open (dynalite-thread.js says why), and an open
  // iterator keeps the table files it started on: compacted files were never deleted.
  it('deletes compacted table files while queries run between the writes', async () => {
    for (let i = 0; i < WRITES; i++) {
      await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { PK: 'files', SK: `item#${i % 4}`, payload: randomBytes(ITEM_BYTES) } }));
      // One query stops early (Limit), one reads a partition to its end.
      await db.doc.send(
        new QueryCommand({ TableName: db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'files' }, Limit: 1 }),
      );
      await db.doc.send(new QueryCommand({ TableName: db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'none' } }));
    }
    const written = WRITES * ITEM_BYTES;
    // Four live items of 192 KB; LevelDB keeps a few memtables' worth of level-0 files before compacting them.
    // Measured: 9 MB once they are deleted, 72 MB (more than was written) when every query kept its files.
    expect(await tableFilesBytes(dir)).toBeLessThan(written);
  }, 60_000);
});

describe("dynalite's table files", () => {
  // LevelDB keeps the index of each open table file on the heap, an entry per block: larger blocks,
  // smaller indexes (LEVELDB_BLOCK_BYTES in dynamodb.ts). LevelDB's default would cut blocks at 4 KB.
  it('are written in blocks of 16 KB', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aos-dynalite-blocks-'));
    try {
      const local = await startDynamoDb(dir);
      try {
        await createActiveTable(local.client, createTableInput('aos-blocks'));
        const db = createDb('aos-blocks', local.client);
        // 6 MB of 1 KB items: more than LevelDB's 4 MB write buffer, so one table file is written.
        for (let batch = 0; batch < 240; batch++) {
          const items = Array.from({ length: 25 }, (_, i) => ({ PK: 'blocks', SK: `item#${batch * 25 + i}`, payload: randomBytes(768) }));
          await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: items.map((Item) => ({ PutRequest: { Item } })) } }));
        }
      } finally {
        // Closing waits for LevelDB's background work: the table file is whole once it is listed.
        await local.stop();
      }
      const tableFiles = (await readdir(dir)).filter((name) => name.endsWith('.ldb'));
      const sizes = (await Promise.all(tableFiles.map(async (name) => dataBlockSizes(await readFile(join(dir, name)))))).flat();
      // About 4 MB of items: some 250 blocks of 16 KB (a thousand of 4 KB).
      expect(sizes.length).toBeGreaterThan(100);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(16 * 1024);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
