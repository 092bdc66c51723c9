import { type StoredTraceSummary, TRACE_STATES } from '#shared/domain/spans/ports.ts';
import { queryAll } from '#shared/store/batch.ts';
import type { Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { stripKeys } from '#shared/store/keys.ts';
import { TABLE } from '#shared/store/table.ts';
import { timeRangeCondition } from '#shared/store/traces.ts';

/**
 * Every trace summary of a tenant that started in [startMs, endMs], newest first, read whole from its
 * three state lists: what tests and benchmarks compare the service's pages, totals and rollups with.
 * No request reads this way.
 */
export async function allSummaries(db: Db, tenantId: string, range: { startMs?: number; endMs?: number } = {}): Promise<StoredTraceSummary[]> {
  const { gsi1 } = TABLE.indexes;
  const { lower, upper } = timeRangeCondition(range.startMs, range.endMs);
  const lists = await Promise.all(
    TRACE_STATES.map((state) =>
      queryAll(db, {
        IndexName: gsi1.name,
        KeyConditionExpression: `${gsi1.partitionKey} = :pk AND ${gsi1.sortKey} BETWEEN :lower AND :upper`,
        ExpressionAttributeValues: { ':pk': keys.tenantCollection(tenantId, 'TRACES', state), ':lower': lower, ':upper': upper },
      }),
    ),
  );
  return lists
    .flat()
    .sort((a, b) => (String(a[gsi1.sortKey]) < String(b[gsi1.sortKey]) ? 1 : -1))
    .map((item) => stripKeys<StoredTraceSummary>(item));
}
