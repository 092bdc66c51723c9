import { isDeepStrictEqual } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { bucketStart, type Granularity } from '#shared/domain/analytics/buckets.ts';
import { ALL_AGENTS } from '#shared/domain/analytics/rollup.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import type { Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { rollupsRepository } from '#shared/store/rollups.ts';
import { tracesRepository } from '#shared/store/traces.ts';
import { type Item, type ItemContext, minuteItem, summaryItem } from './items.ts';

/*
 * The bulk seeding writes items it builds itself. These checks have the repositories write a few of
 * the same items their own way and compare, so that a change to the stored shape cannot go unnoticed.
 */

async function storedItem(db: Db, key: Record<string, unknown>): Promise<Item | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: true }));
  return Item;
}

/** Binary values as the store answers them: a Buffer built here equals the Uint8Array read back. */
const normalised = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return Uint8Array.from(value);
  if (Array.isArray(value)) return value.map(normalised);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalised(v)]));
  return value;
};

/** The attributes whose values differ between two items, either way. */
function differences(a: Item | undefined, b: Item | undefined): string[] {
  if (!a || !b) return a === b ? [] : ['the whole item (one is missing)'];
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => !isDeepStrictEqual(normalised(a[name]), normalised(b[name])));
}

const differenceLine = (what: string, names: string[]) => (names.length === 0 ? [] : [`${what} differ in ${names.join(', ')}`]);

/**
 * Writes one trace's summary with `putSummary` and counts it into its minute bucket with `countTraces`,
 * and says where the stored items differ from the bulk ones. Must run before that minute is bulk-written.
 */
export async function bulkShapeMismatches(db: Db, ctx: ItemContext, trace: TraceSummary): Promise<string[]> {
  await tracesRepository(db).putSummary(ctx.tenantId, trace, ctx.revision, ctx.expiresAt);
  const summary = await storedItem(db, keys.traceSummary(ctx.tenantId, trace.traceId));
  const minute = bucketStart(trace.startTimeMs, 'minute');
  await rollupsRepository(db).countTraces(ctx.tenantId, minute, [trace], ctx.expiresAt);
  const bucket = await storedItem(db, keys.rollup(ctx.tenantId, ALL_AGENTS, 'minute', minute));
  return [
    // The version is a token each write draws at random.
    ...differenceLine(
      "putSummary's item and the bulk summary item",
      differences(summary, summaryItem(ctx, trace)).filter((name) => name !== 'version'),
    ),
    ...differenceLine("countTraces's bucket and the bulk minute bucket", differences(bucket, minuteItem(ctx, minute, [trace]))),
  ];
}

interface BucketRef {
  scope: string;
  granularity: Granularity;
  startMs: number;
}

/** Expiry aside: the compaction sets it from the time it runs. */
const rollupOfItem = (item: Item | undefined) => (item ? { ...item, expiresAt: undefined } : undefined);

/**
 * Marks the given hours dirty, has the compaction job recompute them and their days from the stored
 * minutes, and says where its buckets of the given scopes differ from the bulk-written ones.
 */
export async function compactionMismatches(
  db: Db,
  ctx: ItemContext,
  scopes: readonly string[],
  hourStarts: readonly number[],
  runCompaction: () => Promise<void>,
): Promise<string[]> {
  const read = (refs: readonly BucketRef[]) => Promise.all(refs.map((r) => storedItem(db, keys.rollup(ctx.tenantId, r.scope, r.granularity, r.startMs))));
  const candidates = scopes.flatMap((scope) => hourStarts.map((startMs): BucketRef => ({ scope, granularity: 'hour', startMs })));
  const found = await read(candidates);
  const hours = candidates.filter((_, i) => found[i] !== undefined);
  const days = [
    ...new Map(
      hours.map((h) => [
        `${h.scope}|${bucketStart(h.startMs, 'day')}`,
        { scope: h.scope, granularity: 'day' as const, startMs: bucketStart(h.startMs, 'day') },
      ]),
    ).values(),
  ];
  const refs = [...hours, ...days];
  const bulk = await read(refs);
  const rollups = rollupsRepository(db);
  for (const hourStartMs of hourStarts) await rollups.markDirty(ctx.tenantId, hourStartMs, ctx.expiresAt);
  await runCompaction();
  const recomputed = await read(refs);
  return refs.flatMap((ref, i) =>
    differenceLine(
      `the compaction's ${ref.granularity} ${new Date(ref.startMs).toISOString()} of scope ${ref.scope} and the bulk one`,
      differences(rollupOfItem(recomputed[i]), rollupOfItem(bulk[i])),
    ),
  );
}
