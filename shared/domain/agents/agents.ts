import type * as z from 'zod/mini';
import type { createAgentBody, updateAgentBody } from '../../schemas/routes/agents.ts';
import { effectiveAlertConfig } from '../alerts/config.ts';
import { agentRollups, agentRollupsBetween, retentionDaysOf } from '../analytics/queries.ts';
import { emptyRollup, type Rollup } from '../analytics/rollup.ts';
import { agentMetricsOf } from '../analytics/views.ts';
import { resolveRange } from '../analytics/window.ts';
import { ForbiddenError, NotFoundError, ServiceUnavailableError, ValidationError } from '../errors.ts';
import { stopExperimentsOfAgent } from '../experiments/service.ts';
import type { IngestMessage } from '../ingest/messages.ts';
import type { PageInput } from '../paging/page.ts';
import { PLANS, UNLIMITED } from '../plans/plans.ts';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import { AgentNameTakenError, type AgentRecord } from './ports.ts';

export interface AgentDeps {
  store: Pick<Store, 'agents' | 'tenants' | 'rollups'>;
  clock: Clock;
  ids: Ids;
}

/** The dates an agent's metrics cover: `startDate` and `endDate` when either is given. */
export interface MetricsRangeQuery {
  startDate?: Date | undefined;
  endDate?: Date | undefined;
}

/** What an agent's metrics need besides the agents: the plan's retention, and the hours not recomputed yet. */
interface MetricsInputs {
  retentionDays: number;
  dirtyHours: readonly number[];
}

const metricsInputs = async (deps: AgentDeps, tenantId: string): Promise<MetricsInputs> => {
  const [retentionDays, dirtyHours] = await Promise.all([retentionDaysOf(deps.store, tenantId), deps.store.rollups.dirtyHours(tenantId)]);
  return { retentionDays, dirtyHours };
};

/**
 * These agents' rollups: over the range the query asks for (the 7 days up to `endDate` when only that
 * is given, as in the analytics), else over the plan's retention in calendar days, today's included.
 */
async function metricsRollups(deps: AgentDeps, tenantId: string, agentIds: readonly string[], query: MetricsRangeQuery, inputs: MetricsInputs) {
  if (agentIds.length === 0) return new Map<string, Rollup>();
  if (query.startDate || query.endDate) return agentRollupsBetween(deps, tenantId, resolveRange(query, deps.clock.now()), agentIds, inputs.dirtyHours);
  return agentRollups(deps, tenantId, inputs.retentionDays, agentIds, inputs.dirtyHours);
}

/** The agent with the spec's per-agent metrics, from the same rollups the analytics read. */
async function view(agent: AgentRecord, deps: AgentDeps, rollup?: Rollup) {
  const metricsRollup =
    rollup ?? (await metricsRollups(deps, agent.tenantId, [agent.id], {}, await metricsInputs(deps, agent.tenantId))).get(agent.id) ?? emptyRollup();
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    profileSettings: agent.profileSettings,
    source: agent.source,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
    lastSeenAt: agent.lastSeenAt ?? null,
    metrics: agentMetricsOf(metricsRollup),
    alertConfig: effectiveAlertConfig(agent.alertConfig),
  };
}

/** Notes when each agent's newest trace among these started (its `lastSeenAt`, to within a minute). */
export async function noteAgentsSeen(
  tenantId: string,
  summaries: ReadonlyArray<Pick<TraceSummary, 'agentId' | 'startTimeMs'>>,
  agents: Store['agents'],
): Promise<void> {
  const newest = new Map<string, number>();
  for (const { agentId, startTimeMs } of summaries) if (agentId && startTimeMs > (newest.get(agentId) ?? -Infinity)) newest.set(agentId, startTimeMs);
  await Promise.all([...newest].map(([agentId, startMs]) => agents.noteSeen(tenantId, agentId, startMs)));
}

const nameTaken = (name: string) => new ValidationError(`name: an agent named "${name}" already exists`);

export async function createAgent(tenantId: string, body: z.infer<typeof createAgentBody>, deps: AgentDeps) {
  const tenant = await deps.store.tenants.get(tenantId);
  const limit = tenant ? PLANS[tenant.subscription.plan].features.agents : 0;
  const now = deps.clock.now().toISOString();
  const agent: AgentRecord = {
    id: deps.ids.next('agt'),
    tenantId,
    name: body.name,
    description: body.description,
    profileSettings: body.profileSettings,
    source: 'explicit',
    createdAt: now,
    updatedAt: now,
  };
  const create = () => deps.store.agents.create(agent);
  try {
    if (limit === UNLIMITED) await create();
    else {
      // Counted and created under the tenant's creation lock: creates at once would each pass the count.
      await deps.store.agents.withCreationLock(tenantId, async () => {
        if ((await deps.store.agents.count(tenantId, true)) >= limit) throw new ForbiddenError(`Agent limit reached: the plan allows ${limit} agents`);
        await create();
      });
    }
  } catch (err) {
    if (err instanceof AgentNameTakenError) throw nameTaken(body.name);
    throw err;
  }
  return view(agent, deps);
}

export async function getAgent(tenantId: string, agentId: string, deps: AgentDeps, query: MetricsRangeQuery = {}) {
  const [agent, inputs] = await Promise.all([deps.store.agents.get(tenantId, agentId), metricsInputs(deps, tenantId)]);
  if (!agent) throw new NotFoundError('Agent');
  return view(agent, deps, (await metricsRollups(deps, tenantId, [agentId], query, inputs)).get(agentId) ?? emptyRollup());
}

/**
 * One page of agents in name order, their metrics from the rollups (over the query's dates, or the
 * plan's retention: the page's agents' settled items read together, today from the tenant-wide
 * buckets decoding only the page's agents) and `lastSeenAt` from their items: no read per agent; the
 * agents and their metrics are read at once, by the page's ids.
 */
export async function listAgents(tenantId: string, query: MetricsRangeQuery, page: PageInput, deps: AgentDeps) {
  const pageWithMetrics = async () => {
    const [ids, inputs] = await Promise.all([deps.store.agents.idPage(tenantId, page), metricsInputs(deps, tenantId)]);
    const [agents, rollups] = await Promise.all([deps.store.agents.getMany(tenantId, ids.items), metricsRollups(deps, tenantId, ids.items, query, inputs)]);
    return { ids, agents, rollups };
  };
  const [{ ids, agents, rollups }, total] = await Promise.all([pageWithMetrics(), deps.store.agents.countNames(tenantId)]);
  const items = await Promise.all(agents.map((a) => view(a, deps, rollups.get(a.id) ?? emptyRollup())));
  return { ...ids, items, total: total.count, totalExact: total.exact };
}

export async function updateAgent(tenantId: string, agentId: string, body: z.infer<typeof updateAgentBody>, deps: AgentDeps) {
  try {
    const updated = await deps.store.agents.update(
      tenantId,
      agentId,
      { name: body.name, description: body.description, learningEnabled: body.profileSettings?.learningEnabled },
      deps.clock.now(),
    );
    if (!updated) throw new NotFoundError('Agent');
    return view(updated, deps);
  } catch (err) {
    if (err instanceof AgentNameTakenError) throw nameTaken(body.name ?? '');
    throw err;
  }
}

/**
 * Removes the agent at once and stops its experiments; its traces, signals and logs are purged in the
 * background. Queues the purge before deleting, and the purge deletes the agent and stops its
 * experiments too: when queuing fails nothing is deleted and the client retries (503); when the delete
 * here fails, the purge finishes it, and so it does when stopping the experiments fails after it.
 * Either way an agent's traces, signals and logs are never left behind without their agent, nor its
 * experiments running.
 */
export async function deleteAgent(
  tenantId: string,
  agentId: string,
  deps: { store: Pick<Store, 'agents' | 'experiments'>; queue: QueuePort; clock: Clock; reportError?: (text: string, err: unknown) => void },
) {
  if (!(await deps.store.agents.get(tenantId, agentId))) throw new NotFoundError('Agent');
  const purge: IngestMessage = { kind: 'purge-agent', tenantId, agentId };
  try {
    await deps.queue.send('ingest', [purge]);
  } catch (err) {
    throw new ServiceUnavailableError(5, { cause: err });
  }
  await deps.store.agents.delete(tenantId, agentId);
  // The agent is gone: an error now would tell the client to retry a delete that answers 404 from then
  // on. The purge queued above stops the experiments too, retried until it does.
  await stopExperimentsOfAgent(tenantId, agentId, deps).catch((err: unknown) =>
    deps.reportError?.(`The experiments of deleted agent ${agentId} were not stopped; its purge stops them`, err),
  );
  return { id: agentId, deleted: true };
}
