import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AgentNameTakenError, type AgentRecord, type AgentsRepository, LAST_SEEN_RESOLUTION_MS } from '../domain/agents/ports.ts';
import type { AlertConfigPatch } from '../domain/alerts/config.ts';
import type { PageInput, Total } from '../domain/paging/page.ts';
import { LONGEST_RETENTION_DAYS } from '../domain/plans/plans.ts';
import { batchGet, countAll, queryAll } from './batch.ts';
import { type Db, epochSeconds, ifWritten, isConditionFailure, written } from './client.ts';
import * as keys from './keys.ts';
import { DELETED_AGENT_PREFIX, stripKeys } from './keys.ts';
import { countItems, readPage, type Source } from './pages.ts';

/** How many deleted agents a tenant-wide list leaves out by name (a FilterExpression's IN takes 100 values). */
const DELETED_AGENTS_LEFT_OUT = 100;

export function agentsRepository(db: Db): AgentsRepository {
  const { doc, tableName: TableName } = db;
  /** Per tenant and agent, the last `lastSeenAt` this process wrote or found newer. */
  const lastSeen = new Map<string, number>();
  const byName = (tenantId: string): Source[] => [{ index: 'table', partition: keys.agentName(tenantId, '').PK }];

  async function get(tenantId: string, agentId: string): Promise<AgentRecord | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.agent(tenantId, agentId) }));
    return Item ? stripKeys<AgentRecord>(Item) : undefined;
  }

  async function idForName(tenantId: string, name: string, consistent = false): Promise<string | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.agentName(tenantId, name), ConsistentRead: consistent }));
    return Item ? String(Item['agentId']) : undefined;
  }

  async function claimName(tenantId: string, name: string, agentId: string): Promise<boolean> {
    return written(
      doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.agentName(tenantId, name), entity: 'agentName', agentId, name },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  }

  async function putAgent(agent: AgentRecord): Promise<void> {
    await written(
      doc.send(
        new PutCommand({
          TableName,
          Item: { ...keys.agent(agent.tenantId, agent.id), entity: 'agent', ...agent },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  }

  async function idPage(tenantId: string, page: PageInput) {
    const claims = await readPage(db, { sources: byName(tenantId), range: keys.agentNameRange, order: 'oldest-first', page });
    return { ...claims, items: claims.items.map((claim) => String(claim['agentId'])) };
  }

  async function getMany(tenantId: string, agentIds: readonly string[]): Promise<AgentRecord[]> {
    const found = await batchGet(
      db,
      agentIds.map((agentId) => keys.agent(tenantId, agentId)),
    );
    const byId = new Map(found.map((item) => [String(item['id']), stripKeys<AgentRecord>(item)]));
    return agentIds.flatMap((agentId) => byId.get(agentId) ?? []);
  }

  return {
    get,
    idForName,

    /** One page of the tenant's agents in name order (their name claims are ordered by name). */
    async page(tenantId: string, page: PageInput) {
      const ids = await idPage(tenantId, page);
      return { ...ids, items: await getMany(tenantId, ids.items) };
    },

    idPage,
    getMany,

    countNames: (tenantId: string): Promise<Total> => countItems(db, { sources: byName(tenantId), range: keys.agentNameRange }),

    /**
     * Notes that the agent's traces started as late as `startMs`, when that is later than noted by more
     * than LAST_SEEN_RESOLUTION_MS (as far as this process knows; the write is conditional anyway).
     */
    async noteSeen(tenantId: string, agentId: string, startMs: number): Promise<void> {
      const key = `${tenantId}|${agentId}`;
      if ((lastSeen.get(key) ?? -Infinity) + LAST_SEEN_RESOLUTION_MS > startMs) return;
      lastSeen.set(key, startMs);
      if (lastSeen.size > 10_000) lastSeen.delete(lastSeen.keys().next().value!);
      const at = new Date(startMs).toISOString();
      await written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.agent(tenantId, agentId),
            UpdateExpression: 'SET lastSeenAt = :at',
            ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastSeenAt) OR lastSeenAt < :at)',
            ExpressionAttributeValues: { ':at': at },
          }),
        ),
      );
    },

    /** Agents deleted within the longest retention, newest id order; `complete` is false when there are more than a list leaves out. */
    async deletedLately(tenantId: string): Promise<{ agentIds: string[]; complete: boolean }> {
      const { Items = [] } = await doc.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.deletedAgent(tenantId, '').PK, ':prefix': DELETED_AGENT_PREFIX },
          ProjectionExpression: 'agentId',
          Limit: DELETED_AGENTS_LEFT_OUT + 1,
        }),
      );
      return { agentIds: Items.slice(0, DELETED_AGENTS_LEFT_OUT).map((i) => String(i['agentId'])), complete: Items.length <= DELETED_AGENTS_LEFT_OUT };
    },

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
      const updated = await ifWritten(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.agent(tenantId, agentId),
            UpdateExpression: 'SET alertConfig = :config, updatedAt = :now',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':config': alertConfig, ':now': now.toISOString() },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return updated?.Attributes ? stripKeys<AgentRecord>(updated.Attributes) : undefined;
    },

    /**
     * Removes the agent and its name claim; its traces are purged separately. The name claim goes first: `ensure` takes a claim whose agent item is missing for a crashed
     * create and writes the item back, so deleting the item first could bring the agent back.
     */
    async delete(tenantId: string, agentId: string): Promise<AgentRecord | undefined> {
      const current = await get(tenantId, agentId);
      if (!current) return undefined;
      // First: from now on tenant-wide trace lists leave its traces out, and totals take them out of the rollups.
      const forgetAt = epochSeconds(new Date()) + (LONGEST_RETENTION_DAYS + 1) * 86_400;
      await doc.send(new PutCommand({ TableName, Item: { ...keys.deletedAgent(tenantId, agentId), entity: 'deletedAgent', agentId, expiresAt: forgetAt } }));
      await written(
        doc.send(
          new DeleteCommand({
            TableName,
            Key: keys.agentName(tenantId, current.name),
            ConditionExpression: 'agentId = :id',
            ExpressionAttributeValues: { ':id': agentId },
          }),
        ),
      );
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
