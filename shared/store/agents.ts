import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type UpdateCommandOutput } from '@aws-sdk/lib-dynamodb';
import { AgentNameTakenError, type AgentRecord, type AgentsRepository, agentNameKey, LAST_SEEN_RESOLUTION_MS } from '../domain/agents/ports.ts';
import type { AlertConfigPatch } from '../domain/alerts/config.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import type { PageInput, Total } from '../domain/paging/page.ts';
import { LONGEST_RETENTION_DAYS } from '../domain/plans/plans.ts';
import { backoff } from '../domain/retry.ts';
import { batchGet, countAll, queryAll } from './batch.ts';
import { type Db, epochSeconds, ifWritten, written } from './client.ts';
import * as keys from './keys.ts';
import { DELETED_AGENT_PREFIX, stripKeys } from './keys.ts';
import { countItems, keysOf, readPage, type Source } from './pages.ts';
import { TABLE } from './table.ts';

/**
 * Rounds of reading and writing an agent that others rename or delete at the same time (each round
 * at least one of them wins); past them the request is answered 503, to be retried.
 */
const CONTENDED_ATTEMPTS = 12;
/**
 * How long an agent's own claim of another name, and the agent, must have been left alone for the
 * claim to be taken for one a failed rename left (a rename claims, updates the agent, then drops its
 * old claim, within one request).
 */
const SETTLED_CLAIM_MS = 60_000;

/**
 * How long a creation lock holds at most: one whose holder died frees itself after this. The lock is a
 * conditional put and delete of one item, as the export slots are (store/exports.ts), through the same
 * DynamoDB client: the lock libraries for Node.js (dynamodb-lock-client) add a second client and a
 * heartbeat this few-millisecond hold does not need.
 */
const CREATION_LOCK_MS = 5_000;
/** How long a request tries to take a held creation lock: longer than a hold, so a dead holder's runs out first. */
const CREATION_LOCK_WAIT_MS = CREATION_LOCK_MS + 2_000;

/** How many deleted agents a tenant-wide list leaves out by name (a FilterExpression's IN takes 100 values). */
const DELETED_AGENTS_LEFT_OUT = 100;

export function agentsRepository(db: Db): AgentsRepository {
  const { doc, tableName: TableName } = db;
  /** Per tenant and agent, the last `lastSeenAt` this process wrote or found newer. */
  const lastSeen = new Map<string, number>();
  const byName = (tenantId: string): Source[] => [{ index: 'table', partition: keys.agentName(tenantId, '').PK }];

  async function get(tenantId: string, agentId: string, consistent = false): Promise<AgentRecord | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.agent(tenantId, agentId), ...(consistent ? { ConsistentRead: true } : {}) }));
    return Item ? stripKeys<AgentRecord>(Item) : undefined;
  }

  /** The keys a name's claim may lie under: its own, and for a name not in NFC, the one a claim written before 2026-11-30 has. */
  function claimKeys(tenantId: string, name: string): Array<Record<string, string>> {
    const current = keys.agentName(tenantId, name);
    const legacy = keys.legacyAgentName(tenantId, name);
    return legacy.SK === current.SK ? [current] : [current, legacy];
  }

  async function idForName(tenantId: string, name: string, consistent = false): Promise<string | undefined> {
    for (const Key of claimKeys(tenantId, name)) {
      const { Item } = await doc.send(new GetCommand({ TableName, Key, ConsistentRead: consistent }));
      if (Item) return String(Item['agentId']);
    }
    return undefined;
  }

  async function claimName(tenantId: string, name: string, agentId: string, nowMs = Date.now()): Promise<boolean> {
    return written(
      doc.send(
        new PutCommand({
          TableName,
          Item: {
            ...keys.agentName(tenantId, name),
            // Listed under the agent too, so that its delete finds every claim it has without reading the tenant's.
            [TABLE.indexes.gsi2.partitionKey]: keys.agentCollection(tenantId, agentId, 'NAMES'),
            [TABLE.indexes.gsi2.sortKey]: keys.agentName(tenantId, name).SK,
            entity: 'agentName',
            agentId,
            name,
            claimedAtMs: nowMs,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  }

  /** The name's claim as stored (strongly consistent), or undefined. */
  async function claimOf(tenantId: string, name: string): Promise<{ agentId: string; claimedAtMs?: number } | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.agentName(tenantId, name), ConsistentRead: true }));
    return Item ? { agentId: String(Item['agentId']), ...(typeof Item['claimedAtMs'] === 'number' ? { claimedAtMs: Item['claimedAtMs'] } : {}) } : undefined;
  }

  /**
   * Every name claim of the agent listed under it: its name's, and any a rename that failed partway
   * left (claims written before 2026-11-29 are not listed; the delete drops the current name's anyway).
   */
  async function claimsOf(tenantId: string, agentId: string): Promise<string[]> {
    const { indexName, partitionKey } = keysOf('gsi2');
    const items = await queryAll(db, {
      IndexName: indexName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': partitionKey, '#n': 'name' },
      ExpressionAttributeValues: { ':pk': keys.agentCollection(tenantId, agentId, 'NAMES') },
      ProjectionExpression: '#n',
    });
    return items.map((item) => String(item['name']));
  }

  /** Gives up the name's claim, if it is still this agent's (under either key it may lie under). */
  async function dropClaim(tenantId: string, name: string, agentId: string): Promise<void> {
    for (const Key of claimKeys(tenantId, name)) {
      await written(doc.send(new DeleteCommand({ TableName, Key, ConditionExpression: 'agentId = :id', ExpressionAttributeValues: { ':id': agentId } })));
    }
  }

  /** Whether the agent was deleted (its marker outlives every trace it had). */
  async function wasDeleted(tenantId: string, agentId: string): Promise<boolean> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.deletedAgent(tenantId, agentId), ConsistentRead: true }));
    return Item !== undefined;
  }

  /** Writes the agent's item unless it exists; whether it wrote. */
  async function putAgent(agent: AgentRecord): Promise<boolean> {
    return written(
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
    get: (tenantId: string, agentId: string) => get(tenantId, agentId),
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
     * by the next call. A claim whose agent was deleted (one that an earlier version's concurrent
     * renames left behind) is dropped, and the name claimed anew, rather than bringing the agent back.
     */
    async ensure(candidate: AgentRecord): Promise<string> {
      const { tenantId, name } = candidate;
      // The usual case, an agent seen before, costs one read and no write.
      const known = await idForName(tenantId, name);
      if (known && (await get(tenantId, known))) return known;
      for (let attempt = 0; attempt < CONTENDED_ATTEMPTS; attempt++) {
        if (attempt > 0) await backoff(attempt);
        if (await claimName(tenantId, name, candidate.id)) {
          await putAgent(candidate);
          return candidate.id;
        }
        const agentId = await idForName(tenantId, name, true);
        if (agentId && !(await wasDeleted(tenantId, agentId))) {
          // A delete that ran to its end between the check and this repair: its item, if this wrote
          // it, goes again, and the name is claimed anew.
          const wrote = await putAgent({ ...candidate, id: agentId });
          if (!(await wasDeleted(tenantId, agentId))) return agentId;
          if (wrote) await doc.send(new DeleteCommand({ TableName, Key: keys.agent(tenantId, agentId) }));
        }
        if (agentId) await dropClaim(tenantId, name, agentId);
      }
      throw new ServiceUnavailableError(1);
    },

    /**
     * Applies the change to the agent's stored fields (an update: its alert configuration and
     * `lastSeenAt`, which others write meanwhile, stay). A rename claims the new name first and gives
     * up the old one after, conditional on the name it read: of two renames at once, the one that
     * finds the agent renamed meanwhile gives up its claim and starts over from the new name, so the
     * agent keeps one claim, its name's. A rename whose write fails gives up the claim it wrote; one
     * that fails past that (a crash) leaves a claim, which a later rename to that name takes over once
     * neither the claim nor the agent changed for SETTLED_CLAIM_MS, and the agent's delete drops.
     */
    async update(
      tenantId: string,
      agentId: string,
      change: { name?: string; description?: string; learningEnabled?: boolean },
      now: Date,
    ): Promise<AgentRecord | undefined> {
      for (let attempt = 0; attempt < CONTENDED_ATTEMPTS; attempt++) {
        if (attempt > 0) await backoff(attempt);
        // After a lost race, what the winner wrote.
        const current = await get(tenantId, agentId, attempt > 0);
        if (!current) return undefined;
        const renamed = change.name !== undefined && agentNameKey(change.name) !== agentNameKey(current.name);
        let claimed = false;
        if (renamed && !(claimed = await claimName(tenantId, change.name!, agentId, now.getTime()))) {
          const claim = await claimOf(tenantId, change.name!);
          if (claim && claim.agentId !== agentId) throw new AgentNameTakenError(change.name!);
          // The agent's own claim: another rename to this name in flight (the next round sees it done,
          // or the claim gone), one a rename that just left this name still holds until it drops it,
          // or one a rename that failed partway left, which this rename takes over: only once neither
          // the claim nor the agent changed for a while.
          const settled = (atMs: number) => now.getTime() - atMs > SETTLED_CLAIM_MS;
          if (!claim || !settled(claim.claimedAtMs ?? 0) || !settled(Date.parse(current.updatedAt))) continue;
        }
        let updated: UpdateCommandOutput | undefined;
        try {
          updated = await ifWritten(
            doc.send(
              new UpdateCommand({
                TableName,
                Key: keys.agent(tenantId, agentId),
                UpdateExpression: 'SET #name = :name, description = :description, profileSettings = :settings, updatedAt = :now',
                ConditionExpression: 'attribute_exists(PK) AND #name = :read',
                ExpressionAttributeNames: { '#name': 'name' },
                ExpressionAttributeValues: {
                  ':name': change.name ?? current.name,
                  ':description': change.description ?? current.description,
                  ':settings': { learningEnabled: change.learningEnabled ?? current.profileSettings.learningEnabled },
                  ':now': now.toISOString(),
                  ':read': current.name,
                },
                ReturnValues: 'ALL_NEW',
              }),
            ),
          );
        } catch (err) {
          // The write itself failed (not its condition): the claim this round wrote goes with it.
          if (claimed) await dropClaim(tenantId, change.name!, agentId).catch(() => undefined);
          throw err;
        }
        if (updated?.Attributes) {
          if (renamed) await dropClaim(tenantId, current.name, agentId);
          return stripKeys<AgentRecord>(updated.Attributes);
        }
        // Deleted or renamed meanwhile: the claim this round wrote goes, and the next round reads the agent again.
        if (claimed) await dropClaim(tenantId, change.name!, agentId);
      }
      throw new ServiceUnavailableError(1);
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
     * create and writes the item back, so deleting the item first could bring the agent back. The
     * item goes only while it still has the name whose claim went: a rename meanwhile claimed another,
     * which the next round takes too.
     */
    async delete(tenantId: string, agentId: string): Promise<AgentRecord | undefined> {
      // First: from now on tenant-wide trace lists leave its traces out, and totals take them out of the rollups.
      const forgetAt = epochSeconds(new Date()) + (LONGEST_RETENTION_DAYS + 1) * 86_400;
      let marked = false;
      for (let attempt = 0; attempt < CONTENDED_ATTEMPTS; attempt++) {
        if (attempt > 0) await backoff(attempt);
        // After a lost race, what the winner wrote.
        const current = await get(tenantId, agentId, attempt > 0);
        if (!current) return undefined;
        if (!marked) {
          await doc.send(
            new PutCommand({ TableName, Item: { ...keys.deletedAgent(tenantId, agentId), entity: 'deletedAgent', agentId, expiresAt: forgetAt } }),
          );
          marked = true;
        }
        for (const name of new Set([current.name, ...(await claimsOf(tenantId, agentId))])) await dropClaim(tenantId, name, agentId);
        const deleted = await written(
          doc.send(
            new DeleteCommand({
              TableName,
              Key: keys.agent(tenantId, agentId),
              ConditionExpression: '#name = :read',
              ExpressionAttributeNames: { '#name': 'name' },
              ExpressionAttributeValues: { ':read': current.name },
            }),
          ),
        );
        if (deleted) return current;
      }
      throw new ServiceUnavailableError(1);
    },

    async count(tenantId: string, consistent = false): Promise<number> {
      const { PK, SKPrefix } = keys.agentPrefix(tenantId);
      return countAll(db, {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
        ...(consistent ? { ConsistentRead: true } : {}),
      });
    },

    async withCreationLock<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
      const Key = keys.agentCreationLock(tenantId);
      const holder = randomUUID();
      const giveUpAt = Date.now() + CREATION_LOCK_WAIT_MS;
      for (let attempt = 0; attempt === 0 || Date.now() < giveUpAt; attempt++) {
        if (attempt > 0) await backoff(attempt);
        const nowMs = Date.now();
        const heldUntilMs = nowMs + CREATION_LOCK_MS;
        const taken = await written(
          doc.send(
            new PutCommand({
              TableName,
              Item: { ...Key, entity: 'agentCreationLock', holder, heldUntilMs, expiresAt: epochSeconds(new Date(heldUntilMs)) + 3600 },
              ConditionExpression: 'attribute_not_exists(PK) OR heldUntilMs < :now',
              ExpressionAttributeValues: { ':now': nowMs },
            }),
          ),
        );
        if (!taken) continue;
        try {
          return await work();
        } finally {
          // A release that fails leaves the lock to run out (CREATION_LOCK_MS); what `work` did stands.
          await written(
            doc.send(new DeleteCommand({ TableName, Key, ConditionExpression: 'holder = :me', ExpressionAttributeValues: { ':me': holder } })),
          ).catch(() => false);
        }
      }
      throw new ServiceUnavailableError(1);
    },
  };
}
