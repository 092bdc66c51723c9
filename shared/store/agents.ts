import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AgentNameTakenError, type AgentRecord, type AgentsRepository } from '../domain/agents/ports.ts';
import type { AlertConfigPatch } from '../domain/alerts/config.ts';
import { countAll, queryAll } from './batch.ts';
import { isConditionFailure, type Db } from './client.ts';
import * as keys from './keys.ts';
import { stripKeys } from './keys.ts';

export function agentsRepository(db: Db): AgentsRepository {
  const { doc, tableName: TableName } = db;

  async function get(tenantId: string, agentId: string): Promise<AgentRecord | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.agent(tenantId, agentId) }));
    return Item ? stripKeys<AgentRecord>(Item) : undefined;
  }

  async function idForName(tenantId: string, name: string, consistent = false): Promise<string | undefined> {
    const { Item } = await doc.send(
      new GetCommand({ TableName, Key: keys.agentName(tenantId, name), ConsistentRead: consistent }),
    );
    return Item ? String(Item['agentId']) : undefined;
  }

  async function claimName(tenantId: string, name: string, agentId: string): Promise<boolean> {
    try {
      await doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.agentName(tenantId, name), entity: 'agentName', agentId, name },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async function putAgent(agent: AgentRecord): Promise<void> {
    try {
      await doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.agent(agent.tenantId, agent.id), entity: 'agent', ...agent },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }

  return {
    get,
    idForName,

    async list(tenantId: string): Promise<AgentRecord[]> {
      const { PK, SKPrefix } = keys.agentPrefix(tenantId);
      const items = await queryAll(db, {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
      });
      return items.map((i) => stripKeys<AgentRecord>(i)).sort((a, b) => a.name.localeCompare(b.name));
    },

    /** Creates the agent unless its name is taken in the tenant. The name claim is written first. */
    async create(agent: AgentRecord): Promise<void> {
      if (!(await claimName(agent.tenantId, agent.name, agent.id))) throw new AgentNameTakenError(agent.name);
      await putAgent(agent);
    },

    /**
     * The agent with this name, created if it is new. Race-safe: of two workers seeing a new name at
     * once, one claim wins and both end with its id; a crash between claim and agent item is repaired
     * by the next call.
     */
    async ensure(candidate: AgentRecord): Promise<string> {
      // The usual case, an agent seen before, costs one read and no write.
      const known = await idForName(candidate.tenantId, candidate.name);
      if (known && (await get(candidate.tenantId, known))) return known;
      const claimed = await claimName(candidate.tenantId, candidate.name, candidate.id);
      const agentId = claimed ? candidate.id : await idForName(candidate.tenantId, candidate.name, true);
      if (!agentId) throw new Error('agent name claim vanished while resolving it');
      await putAgent({ ...candidate, id: agentId });
      return agentId;
    },

    async update(
      tenantId: string,
      agentId: string,
      change: { name?: string; description?: string; learningEnabled?: boolean },
      now: Date,
    ): Promise<AgentRecord | undefined> {
      const current = await get(tenantId, agentId);
      if (!current) return undefined;
      const renamed = change.name !== undefined && change.name.trim().toLowerCase() !== current.name.trim().toLowerCase();
      if (renamed && !(await claimName(tenantId, change.name!, agentId))) throw new AgentNameTakenError(change.name!);
      const next: AgentRecord = {
        ...current,
        name: change.name ?? current.name,
        description: change.description ?? current.description,
        profileSettings: { learningEnabled: change.learningEnabled ?? current.profileSettings.learningEnabled },
        updatedAt: now.toISOString(),
      };
      try {
        await doc.send(
          new PutCommand({
            TableName,
            Item: { ...keys.agent(tenantId, agentId), entity: 'agent', ...next },
            ConditionExpression: 'attribute_exists(PK)',
          }),
        );
      } catch (err) {
        if (renamed) await doc.send(new DeleteCommand({ TableName, Key: keys.agentName(tenantId, change.name!) }));
        if (isConditionFailure(err)) return undefined;
        throw err;
      }
      if (renamed) await doc.send(new DeleteCommand({ TableName, Key: keys.agentName(tenantId, current.name) }));
      return next;
    },

    /** Stores the merged alert configuration; undefined when the agent is not the tenant's. */
    async setAlertConfig(tenantId: string, agentId: string, alertConfig: AlertConfigPatch, now: Date): Promise<AgentRecord | undefined> {
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.agent(tenantId, agentId),
            UpdateExpression: 'SET alertConfig = :config, updatedAt = :now',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':config': alertConfig, ':now': now.toISOString() },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ? stripKeys<AgentRecord>(Attributes) : undefined;
      } catch (err) {
        if (isConditionFailure(err)) return undefined;
        throw err;
      }
    },

    /**
     * Removes the agent and its name claim; its traces are purged separately. The name claim goes first: `ensure` takes a claim whose agent item is missing for a crashed
     * create and writes the item back, so deleting the item first could bring the agent back.
     */
    async delete(tenantId: string, agentId: string): Promise<AgentRecord | undefined> {
      const current = await get(tenantId, agentId);
      if (!current) return undefined;
      await doc.send(
        new DeleteCommand({
          TableName,
          Key: keys.agentName(tenantId, current.name),
          ConditionExpression: 'agentId = :id',
          ExpressionAttributeValues: { ':id': agentId },
        }),
      ).catch((err: unknown) => {
        if (!isConditionFailure(err)) throw err;
      });
      await doc.send(new DeleteCommand({ TableName, Key: keys.agent(tenantId, agentId) }));
      return current;
    },

    async count(tenantId: string): Promise<number> {
      const { PK, SKPrefix } = keys.agentPrefix(tenantId);
      return countAll(db, {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
      });
    },
  };
}
