import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWrite, putRequests } from '#shared/store/batch.ts';
import type { Db } from '#shared/store/client.ts';
import { COUNT_BUDGET, compareKeys, countItems, READ_BUDGET, readPage, type Source } from '#shared/store/pages.ts';
import { startDynamo } from '../support/dynamo.ts';
import { seededRandom } from '../support/random.ts';

let db: Db;
let stop: () => Promise<void>;
beforeAll(async () => {
  const dynamo = await startDynamo('aos-pages');
  db = dynamo.db;
  stop = dynamo.stop;
});
afterAll(() => stop());

/** Items in three GSI1 partitions: `n` keys spread over them at random, every seventh one "red", every fiftieth "rare". */
async function seed(prefix: string, n: number) {
  const random = seededRandom(n);
  const items = Array.from({ length: n }, (_, i) => {
    const part = random.pick(['a', 'b', 'c']);
    return {
      PK: `${prefix}#${i}`,
      SK: 'ITEM',
      GSI1PK: `${prefix}#${part}`,
      GSI1SK: `k${String(i).padStart(6, '0')}`,
      n: i,
      red: i % 7 === 0,
      rare: i % 50 === 0,
    };
  });
  await batchWrite(db, putRequests(items));
  const sources: Source[] = ['a', 'b', 'c'].map((part) => ({ index: 'gsi1', partition: `${prefix}#${part}` }));
  return { items, sources };
}

const red = { expression: '#red = :red', names: { '#red': 'red' }, values: { ':red': true } };
const rare = { expression: '#rare = :rare', names: { '#rare': 'rare' }, values: { ':rare': true } };

/** Every page of a list, by cursor: the items in order. */
async function walk(request: Omit<Parameters<typeof readPage>[1], 'page'>, limit: number) {
  const seen: number[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await readPage(db, { ...request, page: { limit, skip: 0, ...(after === undefined ? {} : { after }) } });
    seen.push(...page.items.map((i) => Number(i['n'])));
    if (!page.hasMore) return seen;
    after = page.next;
  }
  throw new Error('the list did not end');
}

describe('pages of merged key-ordered lists', () => {
  it('merge the sources in key order, newest first or oldest first, with skip and by cursor, each item once', async () => {
    const { items, sources } = await seed('merge', 230);
    const all = items.map((i) => i.n);
    expect(await walk({ sources }, 17)).toEqual([...all].reverse());
    expect(await walk({ sources, order: 'oldest-first' }, 50)).toEqual(all);
    const skipped = await readPage(db, { sources, page: { limit: 10, skip: 95 } });
    expect(skipped.items.map((i) => i['n'])).toEqual([...all].reverse().slice(95, 105));
    const ranged = await walk({ sources, range: { lower: 'k000010', upper: 'k000019' } }, 4);
    expect(ranged).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
  });

  it('read a filtered list within the budget: a short page and the position to go on from, never an item twice or out of order', async () => {
    const { items, sources } = await seed('budget', 3 * READ_BUDGET);
    const expected = items
      .filter((i) => i.rare)
      .map((i) => i.n)
      .reverse();
    const first = await readPage(db, { sources, filter: rare, page: { limit: 50, skip: 0 } });
    expect(first.hasMore).toBe(true);
    expect(first.items.length).toBeLessThan(50);
    expect(first.items.map((i) => i['n'])).toEqual(expected.slice(0, first.items.length));
    expect(await walk({ sources, filter: rare }, 50)).toEqual(expected);
    expect(await walk({ sources, filter: red }, 30)).toEqual(
      items
        .filter((i) => i.red)
        .map((i) => i.n)
        .reverse(),
    );
  });

  it('merge a list with a sparse filtered one (the pending traces of a status) in order, reading the sparse one only as far as the page needs', async () => {
    // Every twentieth key in the sparse list (one in ten of those matching its filter), the others in the dense one.
    const items = Array.from({ length: 600 }, (_, n) => {
      const list = n % 20 === 0 ? 'sparse' : 'dense';
      return { PK: `sparse#${n}`, SK: 'ITEM', GSI1PK: `sparse#${list}`, GSI1SK: `k${String(n).padStart(6, '0')}`, n, red: n % 200 === 0 };
    });
    await batchWrite(db, putRequests(items));
    const dense: Source = { index: 'gsi1', partition: 'sparse#dense' };
    const sparse: Source = { index: 'gsi1', partition: 'sparse#sparse', filter: red };
    const expected = items.filter((i) => i.GSI1PK === dense.partition || i.red).map((i) => i.n);
    expect(await walk({ sources: [dense, sparse] }, 9)).toEqual([...expected].reverse());
    expect(await walk({ sources: [dense, sparse], order: 'oldest-first' }, 9)).toEqual(expected);
    let scanned = 0;
    const send = async (command: Parameters<Db['doc']['send']>[0]) => {
      const result = (await db.doc.send(command)) as { ScannedCount?: number };
      scanned += result.ScannedCount ?? 0;
      return result;
    };
    const page = await readPage({ ...db, doc: { send } as unknown as Db['doc'] }, { sources: [dense, sparse], page: { limit: 10, skip: 0 } });
    expect(page.items.map((i) => i['n'])).toEqual([...expected].reverse().slice(0, 10));
    expect(scanned).toBeLessThanOrEqual(3 * 10);
  });

  it('read a source that holds most of the list for the whole page at once: the same page in one round of reads', async () => {
    // Nine keys in ten in the bulk list, the rest in two others.
    const items = Array.from({ length: 300 }, (_, n) => {
      const list = n % 10 === 3 ? 'few' : n % 10 === 7 ? 'rare' : 'bulk';
      return { PK: `bulk#${n}`, SK: 'ITEM', GSI1PK: `bulk#${list}`, GSI1SK: `k${String(n).padStart(6, '0')}`, n };
    });
    await batchWrite(db, putRequests(items));
    const sources = (bulk: boolean): Source[] =>
      ['bulk', 'few', 'rare'].map((list) => ({ index: 'gsi1', partition: `bulk#${list}`, bulk: bulk && list === 'bulk' }));
    const newest = items.map((i) => i.n).reverse();
    expect(await walk({ sources: sources(true) }, 20)).toEqual(newest);
    const reads = async (bulk: boolean) => {
      let calls = 0;
      const send = async (command: Parameters<Db['doc']['send']>[0]) => {
        calls++;
        return db.doc.send(command);
      };
      const page = await readPage({ ...db, doc: { send } as unknown as Db['doc'] }, { sources: sources(bulk), page: { limit: 20, skip: 0 } });
      expect(page.items.map((i) => i['n'])).toEqual(newest.slice(0, 20));
      return calls;
    };
    expect(await reads(true)).toBe(3);
    expect(await reads(false)).toBeGreaterThan(3);
  });

  it('count exactly within the budget, and a lower bound past it', async () => {
    const { items, sources } = await seed('count', COUNT_BUDGET + 300);
    expect(await countItems(db, { sources, range: { lower: 'k000000', upper: 'k000099' } })).toEqual({ count: 100, exact: true });
    expect(await countItems(db, { sources, filter: red, range: { lower: 'k000000', upper: 'k000699' } })).toEqual({ count: 100, exact: true });
    const capped = await countItems(db, { sources });
    expect(capped.exact).toBe(false);
    expect(capped.count).toBeLessThan(items.length);
    expect(capped.count).toBeGreaterThanOrEqual(COUNT_BUDGET - 3);
  });

  it('count exactly when the sources together hold no more than the budget, however unevenly (a list split by level or state)', async () => {
    const budget = 250;
    const skewed = async (prefix: string, n: number) => {
      const partOf = (i: number) => (i < n * 0.85 ? 'a' : i < n * 0.97 ? 'b' : 'c');
      await batchWrite(
        db,
        putRequests(Array.from({ length: n }, (_, i) => ({ PK: `${prefix}#${i}`, SK: 'ITEM', GSI1PK: `${prefix}#${partOf(i)}`, GSI1SK: `k${i}` }))),
      );
      return ['a', 'b', 'c'].map((part): Source => ({ index: 'gsi1', partition: `${prefix}#${part}` }));
    };
    // An even share each (83) counted the large part short: 83 + 29 + 7, 119 of 240.
    expect(await countItems(db, { sources: await skewed('skew', 240), budget })).toEqual({ count: 240, exact: true });
    // Sources that end exactly at their share need a round more to show they ended: 247 items in eight lists.
    const sizes = [47, 50, 43, 35, 11, 4, 38, 19];
    const many = sizes.flatMap((size, part) =>
      Array.from({ length: size }, (_, i) => ({ PK: `many#${part}#${i}`, SK: 'ITEM', GSI1PK: `many#${part}`, GSI1SK: `k${i}` })),
    );
    await batchWrite(db, putRequests(many));
    const lists = sizes.map((_, part): Source => ({ index: 'gsi1', partition: `many#${part}` }));
    expect(await countItems(db, { sources: lists, budget })).toEqual({ count: 247, exact: true });
    const past = await countItems(db, { sources: await skewed('skew-past', 600), budget });
    expect(past.exact).toBe(false);
    expect(past.count).toBeGreaterThanOrEqual(budget - 3);
    expect(past.count).toBeLessThanOrEqual(budget);
  });

  it('order keys as DynamoDB does (UTF-8 bytes), not as JavaScript compares UTF-16', () => {
    expect(compareKeys('\u{1F600}', '\uFFFF')).toBe(1);
    expect('\u{1F600}' < '\uFFFF').toBe(true);
    expect(compareKeys('a#1', 'a#1')).toBe(0);
    expect(compareKeys('a', 'a#')).toBe(-1);
  });
});
