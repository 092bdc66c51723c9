import { randomBytes } from 'node:crypto';
import { batchWrite, putRequests } from '#shared/store/batch.ts';
import type { Db } from '#shared/store/client.ts';
import { startDynamo } from '../../support/dynamo.ts';
import { collectGarbage, type Elapsed, stopwatch } from '../stats.ts';

export interface RawRound {
  /** Spans in the items written. */
  spans: number;
  elapsed: Elapsed;
}

type Item = Record<string, unknown>;

/** BatchWriteItem's limit, as the worker's putSpans sends them. */
const BATCH_WRITE_ITEMS = 25;

/**
 * A fresh in-memory dynalite with the service's table, taking BatchWriteItem calls (25 items each,
 * `writers` calls in flight) of copies of `templates` (stored span group items), each copy under a
 * new trace id of the same length.
 */
export async function startRawBaseline(templates: readonly Item[], writers: number) {
  if (templates.length === 0) throw new Error('no stored span group items to copy for the raw baseline');
  const dynamo = await startDynamo('aos-bench-raw');
  return {
    /** Writes items holding `spans` spans; the items are made before the clock starts. */
    async write(spans: number): Promise<RawRound> {
      const items = copies(templates, spans);
      collectGarbage();
      const elapsed = stopwatch();
      await writeConcurrently(dynamo.db, items, writers);
      return { spans, elapsed: elapsed() };
    },
    stop: () => dynamo.stop(),
  };
}

/** Items shaped and sized like the templates, holding `spans` spans: each template trace copied under a fresh trace id. */
function copies(templates: readonly Item[], spans: number): Item[] {
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
