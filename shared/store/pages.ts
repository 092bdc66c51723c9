import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Order, PageInput, ReadPage, Total } from '../domain/paging/page.ts';
import type { Db } from './client.ts';
import { TABLE } from './table.ts';

/**
 * Pages of key-ordered lists, written once for every list endpoint. A list is one or more key-ordered
 * sources (a partition of the table or of an index, e.g. a tenant's traces that are ok, in error and
 * pending); a page merges them in key order and reads only what it needs: `skip + limit + 1` items
 * (the one more says whether there are more), or, with a filter DynamoDB can only apply after
 * reading (a FilterExpression), at most READ_BUDGET items, returning what it found and where it
 * stopped. A position is a sort key: the next page reads the keys beyond it, so it costs the page,
 * never the pages before it.
 */

type Item = Record<string, unknown>;

export type IndexName = 'table' | keyof typeof TABLE.indexes;

/** A FilterExpression (or part of one) with its placeholders; names start with `#`, values with `:`, never `:k…` (the key condition's). */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

export interface Source {
  index: IndexName;
  partition: string;
  /** A condition only this source's items must meet (e.g. the status of traces in the pending partition). */
  filter?: Condition;
  /**
   * Most of the list is expected here (e.g. the complete traces of a state, against the few pending
   * ones): its first read is the whole page rather than its share, so a usual page takes one round of reads.
   */
  bulk?: boolean;
}

/** Inclusive sort-key bounds. */
export interface KeyRange {
  lower?: string;
  upper?: string;
}

export interface PageRequest {
  sources: readonly Source[];
  range?: KeyRange;
  order?: Order;
  /** Applied to every source after reading: the page reads within READ_BUDGET. */
  filter?: Condition;
  page: PageInput;
  /** Go on reading (within READ_BUDGET) past the page to count the matches: one read for the page and its total. */
  count?: boolean;
  /** Say how many items each source matched past `after` when the page's read went to its end (`matchedToEnd`). */
  tally?: boolean;
}

export type PageOfItems = ReadPage<Item> & {
  /** With `tally`: per source, in the request's order, how many items it matched past `after` when the read went to its end (else undefined). */
  matchedToEnd?: Array<number | undefined>;
};

/** Items a filtered page evaluates at most: a filter that matches rarely answers what it found so far, with a cursor to go on. */
export const READ_BUDGET = 1000;
/** Items a count evaluates at most; beyond, the total is a lower bound (`totalExact: false`). */
export const COUNT_BUDGET = 1000;
/**
 * The count budget of lists that grow with the tenant's traffic (sessions, logs, signals, alerts, a
 * user's traces, filtered traces): five pages of 50, so that a total costs about what its page does
 * whatever the history holds (at COUNT_BUDGET, the count of a tenant with 150,000 traces cost twice
 * its page in the reads bench). Lists the tenant keeps (agents, keys, experiments) count to COUNT_BUDGET.
 */
export const TRAFFIC_COUNT_BUDGET = 250;

export function keysOf(index: IndexName): { partitionKey: string; sortKey: string; indexName?: string } {
  if (index === 'table') return { partitionKey: TABLE.partitionKey, sortKey: TABLE.sortKey };
  const { name, partitionKey, sortKey } = TABLE.indexes[index];
  return { partitionKey, sortKey, indexName: name };
}

/** DynamoDB's order of string keys (UTF-8 bytes), which is code point order, not JavaScript's UTF-16 order. */
export function compareKeys(a: string, b: string): number {
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const maxKey = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : compareKeys(a, b) >= 0 ? a : b);
const minKey = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : compareKeys(a, b) <= 0 ? a : b);

/** The conditions joined with AND, their placeholders merged. */
export function allOf(...conditions: ReadonlyArray<Condition | undefined>): Condition | undefined {
  const present = conditions.filter((c): c is Condition => c !== undefined && c.expression !== '');
  if (present.length === 0) return undefined;
  return {
    expression: present.map((c) => (present.length > 1 ? `(${c.expression})` : c.expression)).join(' AND '),
    names: Object.assign({}, ...present.map((c) => c.names ?? {})),
    values: Object.assign({}, ...present.map((c) => c.values ?? {})),
  };
}

/**
 * The query of one source over a range, past `after` in the list's order (inclusive of `after`
 * itself, which the reader drops: a key condition has one comparison per key). Undefined when the
 * range is empty.
 */
function sourceQuery(db: Db, source: Source, range: KeyRange, order: Order, after: string | undefined, filter: Condition | undefined) {
  const { partitionKey, sortKey, indexName } = keysOf(source.index);
  const lower = order === 'oldest-first' ? maxKey(range.lower, after) : range.lower;
  const upper = order === 'newest-first' ? minKey(range.upper, after) : range.upper;
  if (lower !== undefined && upper !== undefined && compareKeys(lower, upper) > 0) return undefined;
  const sortCondition =
    lower !== undefined && upper !== undefined
      ? ` AND #ksk BETWEEN :klo AND :khi`
      : lower !== undefined
        ? ' AND #ksk >= :klo'
        : upper !== undefined
          ? ' AND #ksk <= :khi'
          : '';
  const condition = allOf(source.filter, filter);
  const input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey' | 'Select'> = {
    TableName: db.tableName,
    ...(indexName ? { IndexName: indexName } : {}),
    KeyConditionExpression: `#kpk = :kpk${sortCondition}`,
    ...(condition ? { FilterExpression: condition.expression } : {}),
    ExpressionAttributeNames: { '#kpk': partitionKey, ...(sortCondition ? { '#ksk': sortKey } : {}), ...condition?.names },
    ExpressionAttributeValues: {
      ':kpk': source.partition,
      ...(lower !== undefined && sortCondition.includes(':klo') ? { ':klo': lower } : {}),
      ...(upper !== undefined && sortCondition.includes(':khi') ? { ':khi': upper } : {}),
      ...condition?.values,
    },
    ScanIndexForward: order === 'oldest-first',
  };
  return { input, sortKey, filtered: condition !== undefined };
}

interface Cursor {
  query: NonNullable<ReturnType<typeof sourceQuery>>;
  buffer: Item[];
  startKey?: Record<string, unknown>;
  done: boolean;
  /** The sort key of the last item read (evaluated), while not done. */
  scanned?: string;
  lastLimit: number;
  bulk: boolean;
  /** Items its reads answered (what it matched so far). */
  matched: number;
}

/**
 * One page of the merged sources, in key order. Reads each source a chunk at a time, only as far as
 * the merge needs; filtered sources together read at most READ_BUDGET items, and when that is spent
 * the page answers the items known to be in order, with the position every source was read past as
 * `next` (an item there is part of the page, so the next page starts strictly after it).
 */
export async function readPage(db: Db, request: PageRequest): Promise<PageOfItems> {
  const order = request.order ?? 'newest-first';
  const { page } = request;
  const after = page.after;
  const precedes = (a: string, b: string) => (order === 'newest-first' ? compareKeys(a, b) > 0 : compareKeys(a, b) < 0);
  const cursors: Cursor[] = [];
  /** Each source's cursor; none for a source whose range is empty. */
  const ofSource = request.sources.map((source) => {
    const query = sourceQuery(db, source, request.range ?? {}, order, after, request.filter);
    if (!query) return undefined;
    const cursor: Cursor = { query, buffer: [], done: false, lastLimit: 0, bulk: source.bulk === true, matched: 0 };
    cursors.push(cursor);
    return cursor;
  });
  const need = page.skip + page.limit + 1;
  const keyOf = (c: Cursor, item: Item) => String(item[c.query.sortKey]);
  /** Filtered sources read within the budget; so does every source of a read that counts. */
  const budgeted = (c: Cursor) => c.query.filtered || request.count === true;
  const out: Array<{ item: Item; key: string }> = [];
  let filteredRead = 0;

  const fetch = async (c: Cursor, limit: number) => {
    const result = await db.doc.send(new QueryCommand({ ...c.query.input, Limit: limit, ...(c.startKey ? { ExclusiveStartKey: c.startKey } : {}) }));
    if (budgeted(c)) filteredRead += result.ScannedCount ?? 0;
    c.lastLimit = limit;
    const matched = (result.Items ?? []).filter((item) => keyOf(c, item) !== after);
    c.matched += matched.length;
    c.buffer.push(...matched);
    c.startKey = result.LastEvaluatedKey;
    c.done = !result.LastEvaluatedKey;
    c.scanned = result.LastEvaluatedKey ? String(result.LastEvaluatedKey[c.query.sortKey]) : undefined;
  };
  const chunk = (c: Cursor, filteredDry: number): number => {
    const remaining = need - out.length + (c.lastLimit === 0 && after !== undefined ? 1 : 0);
    if (!budgeted(c)) return c.lastLimit === 0 && cursors.length > 1 && !c.bulk ? Math.ceil(remaining / cursors.length) + 1 : remaining;
    // The first read is the source's share of the page, as for any source (a source that must match a
    // filter, such as the pending traces of a status, is often short); a source that needs more reads
    // four times as much each time, within what is left of the budget.
    const share = Math.max(1, Math.floor((READ_BUDGET - filteredRead) / filteredDry));
    return Math.min(share, c.lastLimit === 0 ? Math.ceil(remaining / cursors.length) + 1 : c.lastLimit * 4);
  };

  let budgetSpent = false;
  while (out.length < need || (request.count && cursors.some((c) => c.buffer.length > 0 || !c.done))) {
    let next: Cursor | undefined;
    for (const c of cursors) if (c.buffer.length > 0 && (!next || precedes(keyOf(c, c.buffer[0]!), keyOf(next, next.buffer[0]!)))) next = c;
    const head = next && keyOf(next, next.buffer[0]!);
    // A source read dry holds nothing before where its read stopped (a filtered read can stop having
    // found nothing), so it is read again only when the next item may lie beyond that: before the
    // head of the others, or, with nothing buffered, only the source read least far. The sparse
    // pending traces of a status are not read on while the page fills from the other list.
    const empty = cursors.filter((c) => c.buffer.length === 0 && !c.done);
    let leastFar: string | undefined;
    for (const c of empty) if (c.scanned !== undefined && (leastFar === undefined || precedes(c.scanned, leastFar))) leastFar = c.scanned;
    const dry = empty.filter((c) => c.scanned === undefined || (head === undefined ? c.scanned === leastFar : precedes(c.scanned, head)));
    if (dry.length > 0) {
      const filteredDry = dry.filter(budgeted).length;
      if (filteredDry > 0 && filteredRead >= READ_BUDGET) {
        budgetSpent = true;
        break;
      }
      await Promise.all(dry.map((c) => fetch(c, chunk(c, filteredDry))));
      continue;
    }
    if (!next) break;
    const item = next.buffer.shift()!;
    out.push({ item, key: head! });
  }

  const counted = request.count ? { count: out.length + cursors.reduce((sum, c) => sum + c.buffer.length, 0), exact: !budgetSpent } : undefined;
  let stoppedAt: string | undefined;
  if (budgetSpent) {
    // Every source is known as far as the unfinished source read least far: the buffered items up to there are in order.
    for (const c of cursors) if (!c.done && c.scanned !== undefined && (stoppedAt === undefined || precedes(c.scanned, stoppedAt))) stoppedAt = c.scanned;
    const known = cursors.flatMap((c) => c.buffer.map((item) => ({ item, key: keyOf(c, item) })));
    out.push(...known.filter((e) => stoppedAt === undefined || !precedes(stoppedAt, e.key)).sort((a, b) => (precedes(a.key, b.key) ? -1 : 1)));
  }
  const data = out.slice(page.skip, page.skip + page.limit);
  const items = data.map((e) => e.item);
  const known = {
    ...(counted ? { counted } : {}),
    ...(request.tally ? { matchedToEnd: ofSource.map((c) => (c === undefined ? 0 : c.done ? c.matched : undefined)) } : {}),
  };
  if (out.length > page.skip + page.limit) return { items, hasMore: true, next: data.at(-1)!.key, ...known };
  if (budgetSpent && stoppedAt !== undefined) return { items, hasMore: true, next: stoppedAt, ...known };
  return { items, hasMore: false, ...known };
}

export interface CountRequest {
  sources: readonly Source[];
  range?: KeyRange;
  filter?: Condition;
  budget?: number;
}

/**
 * How many items of the sources (meeting the filter) lie in the range: exact when the count read to
 * the end within its budget. The sources read in parallel, each its share of what is left; what a
 * source that reached its end did not spend goes, in the next rounds, to those that did not, so the
 * count is exact whenever all the sources hold no more than the budget together (a list split by
 * level or state, one part holding most of it, was counted short: 123 of 135 logs).
 */
export async function countItems(db: Db, request: CountRequest): Promise<Total> {
  const budget = request.budget ?? COUNT_BUDGET;
  const counts = request.sources
    .flatMap((source) => sourceQuery(db, source, request.range ?? {}, 'newest-first', undefined, request.filter) ?? [])
    .map((query) => ({ query, count: 0, startKey: undefined as Record<string, unknown> | undefined, done: false }));
  // Rounds until the budget is spent or every source is read to its end: each round spends at least
  // one item a source still reading (a source read to exactly its share needs one more to know it ended).
  for (let left = budget; left > 0; ) {
    const reading = counts.filter((c) => !c.done);
    if (reading.length === 0) break;
    const share = Math.max(1, Math.floor(left / reading.length));
    const spent = await Promise.all(
      reading.map(async (c) => {
        let scanned = 0;
        do {
          const result = await db.doc.send(
            new QueryCommand({ ...c.query.input, Select: 'COUNT', Limit: share - scanned, ...(c.startKey ? { ExclusiveStartKey: c.startKey } : {}) }),
          );
          c.count += result.Count ?? 0;
          scanned += result.ScannedCount ?? 0;
          c.startKey = result.LastEvaluatedKey;
        } while (c.startKey && scanned < share);
        c.done = c.startKey === undefined;
        return scanned;
      }),
    );
    const spentNow = spent.reduce((sum, n) => sum + n, 0);
    if (spentNow === 0 && reading.every((c) => !c.done)) break; // no source moved: nothing more to learn
    left -= spentNow;
  }
  return { count: counts.reduce((sum, c) => sum + c.count, 0), exact: counts.every((c) => c.done) };
}
