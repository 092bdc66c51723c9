import { randomBytes } from 'node:crypto';
import { batchWrite, putRequests } from '#shared/store/batch.ts';
import type { Db } from '#shared/store/client.ts';
import { startDynamo } from '../../support/dynamo.ts';
import { collectGarbage, type Elapsed, stopwatch } from '../stats.ts';

export interface RawRound {
  /** Spans in (or behind) the items written. */
  spans: number;
  elapsed: Elapsed;
}

type Item = Record<string, unknown>;

/** BatchWriteItem's limit, as the worker's putSpans sends them. */
const BATCH_WRITE_ITEMS = 25;
/** The attributes that place an item in the table or an index: a copy gets fresh ones. */
const KEY_ATTRIBUTE = /^(PK|SK|GSI\d+(PK|SK))$/;

/** What the service stored for a run's spans: every item, and how many spans they held. */
export interface StoredForSpans {
  items: readonly Item[];
  tenantId: string;
  spans: number;
}

/**
 * A fresh in-memory dynalite with the service's table, taking BatchWriteItem calls (25 items each,
 * `writers` calls in flight) of copies of stored items, made before the clock starts:
 * - `spanGroups`: copies of stored span group items, each under a new trace id of the same length;
 * - `everyItem`: copies of every item the service stored for some spans (summaries and their index
 *   entries, sessions, rollups, alerts …), as many per span as there, each under a new tenant id of
 *   the same length. It is what writing the service's items costs before any reading or computing.
 */
export async function startRawBaseline(spanGroupTemplates: readonly Item[], stored: StoredForSpans, writers: number) {
  if (spanGroupTemplates.length === 0) throw new Error('no stored span group items to copy for the raw baseline');
  if (stored.items.length === 0) throw new Error('no stored items to copy for the raw baseline');
  const dynamo = await startDynamo('aos-bench-raw');
  const timed = async (spans: number, items: Item[]): Promise<RawRound> => {
    collectGarbage();
    const elapsed = stopwatch();
    await writeConcurrently(dynamo.db, items, writers);
    return { spans, elapsed: elapsed() };
  };
  return {
    /** Span group items holding `spans` spans. */
    spanGroups: (spans: number) => timed(spans, spanGroupCopies(spanGroupTemplates, spans)),
    /** The items the service stores for `spans` spans. */
    everyItem: (spans: number) => timed(spans, storedCopies(stored, spans)),
    stop: () => dynamo.stop(),
  };
}

/** Items shaped and sized like the templates, holding `spans` spans: each template trace copied under a fresh trace id. */
function spanGroupCopies(templates: readonly Item[], spans: number): Item[] {
  const items: Item[] = [];
  let held = 0;
  while (held < spans) {
    const freshIds = new Map<unknown, string>();
    for (const template of templates) {
      if (held >= spans) break;
      if (!freshIds.has(template['traceId'])) freshIds.set(template['traceId'], randomBytes(16).toString('hex'));
      const traceId = freshIds.get(template['traceId'])!;
      items.push({ ...template, PK: String(template['PK']).replace(String(template['traceId']), traceId), traceId });
      held += Number(template['spanCount']);
    }
  }
  return items;
}

/** As many items as the service stores for `spans` spans, the stored ones taken in turn, each turn under a fresh tenant id. */
function storedCopies({ items: templates, tenantId, spans: storedSpans }: StoredForSpans, spans: number): Item[] {
  const wanted = Math.round((templates.length * spans) / storedSpans);
  const items: Item[] = [];
  while (items.length < wanted) {
    const freshTenant = randomBytes(tenantId.length).toString('base64url').slice(0, tenantId.length);
    for (const template of templates.slice(0, wanted - items.length)) {
      items.push(
        Object.fromEntries(
          Object.entries(template).map(([name, value]) => [
            name,
            KEY_ATTRIBUTE.test(name) && typeof value === 'string' ? value.replaceAll(tenantId, freshTenant) : value,
          ]),
        ),
      );
    }
  }
  return items;
}

/** The items in batches of 25, `writers` batches in flight, like several worker invocations at once. */
async function writeConcurrently(db: Db, items: readonly Item[], writers: number): Promise<void> {
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += BATCH_WRITE_ITEMS) batches.push(items.slice(i, i + BATCH_WRITE_ITEMS));
  let next = 0;
  const writer = async () => {
    while (next < batches.length) await batchWrite(db, putRequests(batches[next++]!));
  };
  await Promise.all(Array.from({ length: writers }, writer));
}
