import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EvaluationUsage, EvaluationUsageRepository } from '../domain/evaluation/ports.ts';
import { type Db, written } from './client.ts';
import * as keys from './keys.ts';

/** A year and a bit, so a year of daily judge costs can be looked back on. */
const KEEP_DAYS = 400;
const DAY_SECONDS = 86_400;

const expiryOf = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + KEEP_DAYS * DAY_SECONDS;

/** Per tenant and UTC day (`YYYY-MM-DD`): the daily evaluation budget and the judge's token and cost ledger, in one item. */
export function evaluationUsageRepository(db: Db): EvaluationUsageRepository {
  const { doc, tableName: TableName } = db;
  return {
    /** Counts one evaluation against the day's budget; answers false, counting nothing, once `budget` have been counted. */
    async claim(tenantId: string, day: string, budget: number): Promise<boolean> {
      return written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.evaluationUsage(tenantId, day),
            UpdateExpression: 'ADD evaluations :one SET expiresAt = if_not_exists(expiresAt, :expires), entity = :entity',
            ConditionExpression: 'attribute_not_exists(evaluations) OR evaluations < :budget',
            ExpressionAttributeValues: { ':one': 1, ':budget': budget, ':expires': expiryOf(day), ':entity': 'evaluationUsage' },
          }),
        ),
      );
    },

    async addJudgeUsage(tenantId: string, day: string, usage: Omit<EvaluationUsage, 'evaluations'>): Promise<void> {
      await doc.send(
        new UpdateCommand({
          TableName,
          Key: keys.evaluationUsage(tenantId, day),
          UpdateExpression: 'ADD inputTokens :input, outputTokens :output, cost :cost SET expiresAt = if_not_exists(expiresAt, :expires), entity = :entity',
          ExpressionAttributeValues: {
            ':input': usage.inputTokens,
            ':output': usage.outputTokens,
            ':cost': usage.cost,
            ':expires': expiryOf(day),
            ':entity': 'evaluationUsage',
          },
        }),
      );
    },

    async get(tenantId: string, day: string): Promise<EvaluationUsage> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.evaluationUsage(tenantId, day) }));
      const n = (name: keyof EvaluationUsage) => Number(Item?.[name] ?? 0);
      return { evaluations: n('evaluations'), inputTokens: n('inputTokens'), outputTokens: n('outputTokens'), cost: n('cost') };
    },
  };
}
