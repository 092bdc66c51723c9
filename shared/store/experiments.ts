import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ExperimentStatus } from '../domain/experiments/lifecycle.ts';
import type { ExperimentQuery, ExperimentRecord, ExperimentsRepository, SignalObservation, TraceObservation } from '../domain/experiments/ports.ts';
import type { PageInput, Total } from '../domain/paging/page.ts';
import { batchWrite, putRequests, queryAll } from './batch.ts';
import { type Db, written } from './client.ts';
import * as keys from './keys.ts';
import { collectionIndexKeys, stripKeys } from './keys.ts';
import { countItems, readPage } from './pages.ts';
import { timeRangeCondition } from './traces.ts';

const experimentList = (tenantId: string, q: ExperimentQuery) => ({
  sources: [
    q.agentId === undefined
      ? ({ index: 'gsi1', partition: keys.tenantCollection(tenantId, 'EXPERIMENTS') } as const)
      : ({ index: 'gsi2', partition: keys.agentCollection(tenantId, q.agentId, 'EXPERIMENTS') } as const),
  ],
  range: timeRangeCondition(q.startMs, q.endMs),
  ...(q.status === undefined ? {} : { filter: { expression: '#fstatus = :fstatus', names: { '#fstatus': 'status' }, values: { ':fstatus': q.status } } }),
});

export function experimentsRepository(db: Db): ExperimentsRepository {
  const { doc, tableName: TableName } = db;

  const item = (e: ExperimentRecord) => ({
    ...keys.experiment(e.tenantId, e.id),
    ...collectionIndexKeys(e.tenantId, e.agentId, 'EXPERIMENTS', Date.parse(e.createdAt), e.id),
    entity: 'experiment',
    ...e,
  });

  /** A put that loses (false) when its condition does not hold. */
  async function conditionalPut(input: ConstructorParameters<typeof PutCommand>[0]): Promise<boolean> {
    return written(doc.send(new PutCommand(input)));
  }

  return {
    async create(e: ExperimentRecord): Promise<void> {
      if (!(await conditionalPut({ TableName, Item: item(e), ConditionExpression: 'attribute_not_exists(PK)' }))) {
        throw new Error(`experiment id ${e.id} already taken`);
      }
    },

    async get(tenantId: string, experimentId: string, consistent = false): Promise<ExperimentRecord | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.experiment(tenantId, experimentId), ConsistentRead: consistent }));
      return Item ? stripKeys<ExperimentRecord>(Item) : undefined;
    },

    /** One page of a tenant's or an agent's experiments, newest first, created within the range; the status is a filter (experiments are few). */
    async page(tenantId: string, q: ExperimentQuery, page: PageInput) {
      const result = await readPage(db, { ...experimentList(tenantId, q), page });
      return { ...result, items: result.items.map((i) => stripKeys<ExperimentRecord>(i)) };
    },

    count: (tenantId: string, q: ExperimentQuery): Promise<Total> => countItems(db, experimentList(tenantId, q)),

    /** Replaces the experiment only while it is still in the status it was read in (false: someone moved it first). */
    async replaceIfStatus(next: ExperimentRecord, expected: ExperimentStatus): Promise<boolean> {
      return conditionalPut({
        TableName,
        Item: item(next),
        ConditionExpression: '#status = :expected',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':expected': expected },
      });
    },

    /**
     * Records a tagged trace as of a summary computed from the spans written up to `revision` (the
     * latest span write it saw); like the summary itself, an older computation never overwrites a newer one.
     */
    async putTraceObservation(
      tenantId: string,
      experimentId: string,
      o: TraceObservation & { revision: number; spanCount: number },
      expiresAt: number,
    ): Promise<void> {
      await conditionalPut({
        TableName,
        Item: { ...keys.experimentTraceObservation(tenantId, experimentId, o.traceId), entity: 'experimentTrace', ...o, expiresAt },
        ConditionExpression: 'attribute_not_exists(PK) OR revision < :revision OR (revision = :revision AND spanCount <= :count)',
        ExpressionAttributeValues: { ':revision': o.revision, ':count': o.spanCount },
      });
    },

    /** Idempotent: a signal observation is keyed by the signal's content id. */
    async putSignalObservations(tenantId: string, observations: ReadonlyArray<SignalObservation & { experimentId: string }>, expiresAt: number): Promise<void> {
      const items = observations.map(({ experimentId, ...o }) => ({
        ...keys.experimentSignalObservation(tenantId, experimentId, o.signalId),
        entity: 'experimentSignal',
        ...o,
        expiresAt,
      }));
      await batchWrite(db, putRequests(items));
    },

    /** Every trace and signal observed for the experiment, in one partition. */
    async observations(tenantId: string, experimentId: string): Promise<{ traces: TraceObservation[]; signals: SignalObservation[] }> {
      const items = await queryAll(db, {
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.experimentObservations(tenantId, experimentId) },
      });
      const of = <T>(entity: string) => items.filter((i) => i['entity'] === entity).map((i) => stripKeys<T>(i));
      return { traces: of<TraceObservation>('experimentTrace'), signals: of<SignalObservation>('experimentSignal') };
    },
  };
}
