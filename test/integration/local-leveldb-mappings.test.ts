import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDb } from '#shared/store/client.ts';
import { createTableInput } from '#shared/store/table.ts';
import { createActiveTable, startDynamoDb } from '../../infra/local/dynamodb.ts';
import { reserveLevelDbMappings } from '../../infra/local/leveldb-mappings.ts';

const ITEM_BYTES = 192 * 1024;
const ITEMS = 60;

/** The table files under `dir` this process has mapped into memory (Linux's /proc/self/maps). */
async function mappedTableFiles(dir: string): Promise<Set<string>> {
  const maps = await readFile('/proc/self/maps', 'utf8');
  const paths = maps.split('\n').map((line) => line.split(/\s+/).slice(5).join(' '));
  return new Set(paths.filter((path) => path.startsWith(dir) && path.endsWith('.ldb')));
}

async function tableFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.ldb'));
}

/**
 * Writes ITEMS items of 192 KB into dynalite under `dir` (several table files' worth), reads them all
 * back, and answers which of its table files were mapped while its store was open.
 */
async function fillAndRead(dir: string): Promise<Set<string>> {
  const local = await startDynamoDb(dir);
  try {
    await createActiveTable(local.client, createTableInput('aos-mappings'));
    const db = createDb('aos-mappings', local.client);
    const payloads = Array.from({ length: ITEMS }, () => randomBytes(ITEM_BYTES).toString('base64'));
    for (const [i, payload] of payloads.entries()) {
      await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { PK: 'mappings', SK: `item#${i}`, payload } }));
    }
    expect((await tableFiles(dir)).length).toBeGreaterThan(1);
    const query = { TableName: db.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'mappings' }, Limit: 3 };
    expect((await db.doc.send(new QueryCommand(query))).Items).toHaveLength(3);
    for (const [i, payload] of payloads.entries()) {
      const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: { PK: 'mappings', SK: `item#${i}` } }));
      expect(Item?.['payload']).toBe(payload);
    }
    return await mappedTableFiles(dir);
  } finally {
    await local.stop();
  }
}

describe.skipIf(process.platform !== 'linux')('LevelDB table files and the mapping reserve', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'aos-leveldb-mappings-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  // What the reserve is for: LevelDB maps every table file it reads (up to 1,000 a process), and
  // mapped pages count in the process's RSS.
  it('without the reserve, dynalite maps the table files it reads', async () => {
    expect((await fillAndRead(join(root, 'dynamodb'))).size).toBeGreaterThan(0);
  }, 60_000);

  it('with the reserve taken first, dynalite reads its table files without mapping them, and every item reads back', async () => {
    const reserve = await reserveLevelDbMappings(join(root, 'reserve'));
    try {
      expect((await mappedTableFiles(join(root, 'reserve'))).size).toBe(1_000);
      expect(await fillAndRead(join(root, 'dynamodb'))).toEqual(new Set());
    } finally {
      await reserve.close();
    }
  }, 60_000);

  it('is built once, opened again as it is, and built again when it cannot be opened', async () => {
    const dir = join(root, 'reserve');
    await (await reserveLevelDbMappings(dir)).close();
    const built = await tableFiles(dir);
    const firstFile = join(dir, built[0]!);
    const { mtimeMs } = await stat(firstFile);

    await (await reserveLevelDbMappings(dir)).close();
    // Opening writes LevelDB's log into a table file of its own; the files built stay as they were.
    expect(await tableFiles(dir)).toEqual(expect.arrayContaining(built));
    expect((await stat(firstFile)).mtimeMs).toBe(mtimeMs);

    await writeFile(join(dir, 'CURRENT'), 'MANIFEST-999999\n');
    const rebuilt = await reserveLevelDbMappings(dir);
    try {
      expect((await mappedTableFiles(dir)).size).toBe(1_000);
    } finally {
      await rebuilt.close();
    }
  }, 60_000);

  it('is built afresh when its building was cut short', async () => {
    const dir = join(root, 'reserve');
    await (await reserveLevelDbMappings(dir)).close();
    // What a start killed while building leaves: files without the key put last.
    const cut = new ClassicLevel(dir);
    await cut.del('~built');
    await cut.close();
    const before = await tableFiles(dir);

    const rebuilt = await reserveLevelDbMappings(dir);
    try {
      expect((await mappedTableFiles(dir)).size).toBe(1_000);
      expect(await tableFiles(dir)).not.toEqual(expect.arrayContaining(before));
    } finally {
      await rebuilt.close();
    }
  }, 60_000);

  it('is taken once a process: a second reserve takes nothing while the first is open', async () => {
    const first = await reserveLevelDbMappings(join(root, 'first'));
    const second = await reserveLevelDbMappings(join(root, 'second'));
    await second.close();
    expect((await mappedTableFiles(join(root, 'first'))).size).toBe(1_000);
    await expect(readdir(join(root, 'second'))).rejects.toThrow();
    await first.close();
  }, 60_000);
});
