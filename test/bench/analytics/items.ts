import { bucketStart, type Granularity } from '../../../shared/domain/analytics/buckets.ts';
import { ALL_AGENTS } from '../../../shared/domain/analytics/ingest.ts';
import { mergeRollups, rollupsByBucket, rollupToItem, type Rollup } from '../../../shared/domain/analytics/rollup.ts';
import type { TraceSummary } from '../../../shared/domain/spans/summary.ts';
import { collectionIndexKeys, keys } from '../../../shared/store/keys.ts';

export type Item = Record<string, unknown>;

/** Where every bulk item goes and what it carries besides its data. */
export interface ItemContext {
  tenantId: string;
  /** The span write a summary was made from (`putSummary`'s revision). */
  revision: number;
  /** The worker batch every minute bucket absorbed. */
  batchId: string;
  expiresAt: number;
}

/** A trace summary item exactly as `tracesRepository.putSummary` writes it. */
export function summaryItem(ctx: ItemContext, summary: TraceSummary): Item {
  return {
    ...keys.traceSummary(ctx.tenantId, summary.traceId),
    ...collectionIndexKeys(ctx.tenantId, summary.agentId, 'TRACES', summary.startTimeMs, summary.traceId),
    entity: 'traceSummary',
    ...summary,
    tenantId: ctx.tenantId,
    revision: ctx.revision,
    expiresAt: ctx.expiresAt,
  };
}

/** An hour or day bucket as the compaction's recompute writes it. */
export function bucketItem(ctx: ItemContext, scope: string, granularity: Granularity, startMs: number, rollup: Rollup): Item {
  return { ...keys.rollup(ctx.tenantId, scope, granularity, startMs), entity: 'rollup', granularity, startMs, ...rollupToItem(rollup), expiresAt: ctx.expiresAt };
}

/** A minute bucket as `rollupsRepository.applyToMinute` leaves a new one after absorbing one batch. */
export function minuteItem(ctx: ItemContext, scope: string, startMs: number, rollup: Rollup): Item {
  return { ...bucketItem(ctx, scope, 'minute', startMs, rollup), applied: [ctx.batchId], version: 1 };
}

/** The scopes a trace is counted in, as `rollUpFinishedTraces` counts it: the tenant's, and its agent's. */
function byScope(traces: readonly TraceSummary[]): Map<string, TraceSummary[]> {
  const scopes = new Map<string, TraceSummary[]>([[ALL_AGENTS, [...traces]]]);
  for (const trace of traces) {
    if (!trace.agentId) continue;
    const scoped = scopes.get(trace.agentId);
    if (scoped) scoped.push(trace);
    else scopes.set(trace.agentId, [trace]);
  }
  return scopes;
}

/** Each coarser bucket merged from the finer ones it contains, as the compaction merges a bucket's stored children. */
function mergeInto(children: ReadonlyMap<number, Rollup>, granularity: Granularity): Map<number, Rollup> {
  const groups = new Map<number, Rollup[]>();
  for (const [startMs, rollup] of children) {
    const parent = bucketStart(startMs, granularity);
    const siblings = groups.get(parent);
    if (siblings) siblings.push(rollup);
    else groups.set(parent, [rollup]);
  }
  return new Map([...groups].map(([startMs, rollups]) => [startMs, mergeRollups(rollups)]));
}

export interface BucketItems {
  minute: Item[];
  hour: Item[];
  day: Item[];
}

/**
 * Every rollup bucket of the finished traces of whole UTC days: per scope, one minute bucket per
 * minute holding the rollup of all its traces (what the worker makes of one batch carrying them), and
 * the hours and days merged from those, as the compaction job would recompute them.
 */
export function bucketItems(ctx: ItemContext, traces: readonly TraceSummary[]): BucketItems {
  const items: BucketItems = { minute: [], hour: [], day: [] };
  for (const [scope, scoped] of byScope(traces)) {
    const minutes = rollupsByBucket(scoped, 'minute');
    const hours = mergeInto(minutes, 'hour');
    const days = mergeInto(hours, 'day');
    for (const [startMs, rollup] of minutes) items.minute.push(minuteItem(ctx, scope, startMs, rollup));
    for (const [startMs, rollup] of hours) items.hour.push(bucketItem(ctx, scope, 'hour', startMs, rollup));
    for (const [startMs, rollup] of days) items.day.push(bucketItem(ctx, scope, 'day', startMs, rollup));
  }
  return items;
}
