import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BUCKET_MS, bucketStart, type BucketRef, type Granularity } from '../domain/analytics/buckets.ts';
import { emptyRollup, mergeRollups, rollupFromItem, rollupToItem, type Rollup, type RollupItem } from '../domain/analytics/rollup.ts';
import { queryAll } from './batch.ts';
import { isConditionFailure, type Db } from './client.ts';
import { keys, rollupSortKey } from './keys.ts';
import { backoff, inTurn } from './turns.ts';

/** Batch ids a minute bucket remembers; far more than one minute's messages of one scope need. */
const MAX_APPLIED = 2000;
const MAX_ATTEMPTS = 12;

const refKey = (r: BucketRef) => rollupSortKey(r.granularity, r.startMs);
const CHILD: Partial<Record<Granularity, Granularity>> = { hour: 'minute', day: 'hour' };

/**
 * Rollup buckets. Minute buckets are the source of truth: each absorbs a batch's delta once (the batch
 * id is remembered in the bucket, checked and written in one versioned put). Hour and day buckets are
 * recomputed from their children (put, never added to), so recomputing twice is harmless.
 */
export function rollupsRepository(db: Db) {
  const { doc, tableName: TableName } = db;

  async function getItem(tenantId: string, scope: string, g: Granularity, startMs: number, consistent = false) {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.rollup(tenantId, scope, g, startMs), ConsistentRead: consistent }));
    return Item;
  }

  /** Rollups of the buckets in [fromMs, toMs) of one granularity, by start. */
  async function range(tenantId: string, scope: string, g: Granularity, fromMs: number, toMs: number): Promise<Map<number, Rollup>> {
    const items = await queryAll(db, {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lower AND :upper',
      ExpressionAttributeValues: {
        ':pk': keys.rollupPartition(tenantId, scope),
        ':lower': rollupSortKey(g, fromMs),
        ':upper': rollupSortKey(g, toMs - 1),
      },
    });
    return new Map(items.map((i) => [Number(i['startMs']), rollupFromItem(i as unknown as RollupItem)]));
  }

  /** Recomputes a coarse bucket from its children; a put, so doing it again changes nothing. */
  async function recompute(tenantId: string, scope: string, g: 'hour' | 'day', startMs: number, expiresAt: number): Promise<void> {
    const children = await range(tenantId, scope, CHILD[g]!, startMs, startMs + BUCKET_MS[g]);
    const merged = mergeRollups([...children.values()]);
    await doc.send(
      new PutCommand({
        TableName,
        Item: { ...keys.rollup(tenantId, scope, g, startMs), entity: 'rollup', granularity: g, startMs, ...rollupToItem(merged), expiresAt },
      }),
    );
  }

  async function applyOnce(tenantId: string, scope: string, minuteStartMs: number, delta: Rollup, batchId: string, expiresAt: number): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const current = await getItem(tenantId, scope, 'minute', minuteStartMs, true);
      const applied = (current?.['applied'] as string[] | undefined) ?? [];
      if (applied.includes(batchId)) return false;
      const version = Number(current?.['version'] ?? 0);
      const base = current ? rollupFromItem(current as unknown as RollupItem) : emptyRollup();
      try {
        await doc.send(
          new PutCommand({
            TableName,
            Item: {
              ...keys.rollup(tenantId, scope, 'minute', minuteStartMs),
              entity: 'rollup',
              granularity: 'minute',
              startMs: minuteStartMs,
              ...rollupToItem(mergeRollups([base, delta])),
              applied: [batchId, ...applied].slice(0, MAX_APPLIED),
              version: version + 1,
              expiresAt,
            },
            ConditionExpression: current ? 'version = :v' : 'attribute_not_exists(PK)',
            ...(current ? { ExpressionAttributeValues: { ':v': version } } : {}),
          }),
        );
        return true;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
    throw new Error(`minute bucket ${minuteStartMs} of ${scope} stayed contended for ${MAX_ATTEMPTS} attempts`);
  }

  return {
    /**
     * Adds a batch's delta to a minute bucket exactly once: a batch id already absorbed is skipped,
     * and concurrent writers retry on the version check.
     */
    applyToMinute(tenantId: string, scope: string, minuteStartMs: number, delta: Rollup, batchId: string, expiresAt: number): Promise<boolean> {
      return inTurn(`${tenantId}|${scope}|${minuteStartMs}`, () => applyOnce(tenantId, scope, minuteStartMs, delta, batchId, expiresAt));
    },


    /** Notes that an hour (and so its day) must be recomputed; the version tells a later change apart. */
    async markDirty(tenantId: string, scope: string, hourStartMs: number, expiresAt: number): Promise<void> {
      await doc.send(
        new UpdateCommand({
          TableName,
          Key: keys.rollupDirty(tenantId, scope, hourStartMs),
          UpdateExpression: 'ADD version :one SET tenantId = :t, #scope = :s, hourStartMs = :h, expiresAt = :e, entity = :entity',
          ExpressionAttributeNames: { '#scope': 'scope' },
          ExpressionAttributeValues: { ':one': 1, ':t': tenantId, ':s': scope, ':h': hourStartMs, ':e': expiresAt, ':entity': 'rollupDirty' },
        }),
      );
    },

    /**
     * Recomputes up to `limit` dirty hours and their days. A marker is removed only if nobody dirtied
     * the hour again meanwhile; otherwise the next run recomputes it once more.
     */
    async compactDirty(limit: number, expiresAtOf: (tenantId: string) => Promise<number>): Promise<number> {
      const page = await doc.send(
        new QueryCommand({ TableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'ROLLUPDIRTY' }, Limit: limit, ConsistentRead: true }),
      );
      for (const marker of page.Items ?? []) {
        const tenantId = String(marker['tenantId']);
        const scope = String(marker['scope']);
        const hourStartMs = Number(marker['hourStartMs']);
        const expiresAt = await expiresAtOf(tenantId);
        await recompute(tenantId, scope, 'hour', hourStartMs, expiresAt);
        await recompute(tenantId, scope, 'day', bucketStart(hourStartMs, 'day'), expiresAt);
        try {
          await doc.send(
            new DeleteCommand({
              TableName,
              Key: { PK: marker['PK'], SK: marker['SK'] },
              ConditionExpression: 'version = :v',
              ExpressionAttributeValues: { ':v': marker['version'] },
            }),
          );
        } catch (err) {
          if (!isConditionFailure(err)) throw err;
        }
      }
      return page.Items?.length ?? 0;
    },

    /** The rollups of the given buckets (missing buckets are simply absent: nothing happened then). */
    async read(tenantId: string, scope: string, refs: readonly BucketRef[]): Promise<Map<string, Rollup>> {
      const out = new Map<string, Rollup>();
      // One query per run of adjacent buckets of the same granularity.
      const runs: BucketRef[][] = [];
      for (const ref of [...refs].sort((a, b) => a.granularity.localeCompare(b.granularity) || a.startMs - b.startMs)) {
        const run = runs.at(-1);
        const last = run?.at(-1);
        if (run && last && last.granularity === ref.granularity && last.startMs + BUCKET_MS[last.granularity] === ref.startMs) run.push(ref);
        else runs.push([ref]);
      }
      const results = await Promise.all(
        runs.map((run) => range(tenantId, scope, run[0]!.granularity, run[0]!.startMs, run.at(-1)!.startMs + BUCKET_MS[run[0]!.granularity])),
      );
      runs.forEach((run, i) => {
        for (const ref of run) {
          const rollup = results[i]!.get(ref.startMs);
          if (rollup) out.set(refKey(ref), rollup);
        }
      });
      return out;
    },

    /** Claims the rollup of a trace for one message; the same message may claim again (a retry). */
    async claimTrace(tenantId: string, traceId: string, batchId: string, expiresAt: number): Promise<boolean> {
      try {
        await doc.send(
          new PutCommand({
            TableName,
            Item: { ...keys.traceRollupClaim(tenantId, traceId), entity: 'traceRollupClaim', batchId, expiresAt },
            ConditionExpression: 'attribute_not_exists(PK) OR batchId = :b',
            ExpressionAttributeValues: { ':b': batchId },
          }),
        );
        return true;
      } catch (err) {
        if (isConditionFailure(err)) return false;
        throw err;
      }
    },
  };
}
export type RollupsRepository = ReturnType<typeof rollupsRepository>;
export { refKey as bucketRefKey };
