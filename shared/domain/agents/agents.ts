import type * as z from 'zod/mini';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import type { createAgentBody, updateAgentBody } from '../../schemas/routes/agents.ts';
import { AgentNameTakenError, type AgentRecord } from './ports.ts';
import type { Store } from '../store.ts';
import { ForbiddenError, NotFoundError, ServiceUnavailableError, ValidationError } from '../errors.ts';
import type { IngestMessage } from '../ingest/messages.ts';
import { PLANS, UNLIMITED } from '../plans/plans.ts';
import { agentRollup, agentRollups } from '../analytics/queries.ts';
import { emptyRollup, type Rollup } from '../analytics/rollup.ts';
import { agentMetricsOf } from '../analytics/views.ts';
import { effectiveAlertConfig } from '../alerts/config.ts';

export interface AgentDeps {
  store: Pick<Store, 'agents' | 'traces' | 'tenants' | 'rollups'>;
  clock: Clock;
  ids: Ids;
}

async function retentionDaysOf(tenantId: string, deps: AgentDeps): Promise<number> {
  const tenant = await deps.store.tenants.get(tenantId);
  return PLANS[tenant?.subscription.plan ?? 'trial'].features.retention;
}

/** The agent with the spec's per-agent metrics, from the same rollups the analytics read. */
async function view(agent: AgentRecord, deps: AgentDeps, rollup?: Rollup) {
  const [metricsRollup, lastStart] = await Promise.all([
    rollup ?? agentRollup(deps, agent.tenantId, agent.id, await retentionDaysOf(agent.tenantId, deps)),
    deps.store.traces.latestStartOfAgent(agent.tenantId, agent.id),
  ]);
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    profileSettings: agent.profileSettings,
    source: agent.source,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
    lastSeenAt: lastStart === undefined ? null : new Date(lastStart).toISOString(),
    metrics: agentMetricsOf(metricsRollup),
    alertConfig: effectiveAlertConfig(agent.alertConfig),
  };
}

const nameTaken = (name: string) => new ValidationError(`name: an agent named "${name}" already exists`);

export async function createAgent(tenantId: string, body: z.infer<typeof createAgentBody>, deps: AgentDeps) {
  const tenant = await deps.store.tenants.get(tenantId);
  const limit = tenant ? PLANS[tenant.subscription.plan].features.agents : 0;
  if (limit !== UNLIMITED && (await deps.store.agents.count(tenantId)) >= limit) {
    throw new ForbiddenError(`Agent limit reached: the plan allows ${limit} agents`);
  }
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
  try {
    await deps.store.agents.create(agent);
  } catch (err) {
    if (err instanceof AgentNameTakenError) throw nameTaken(body.name);
    throw err;
  }
  return view(agent, deps);
}

export async function getAgent(tenantId: string, agentId: string, deps: AgentDeps) {
  const agent = await deps.store.agents.get(tenantId, agentId);
  if (!agent) throw new NotFoundError('Agent');
  return view(agent, deps);
}

/** One page of agents, their metrics from the breakdown in the tenant-wide rollups (one read for the page). */
export async function listAgents(tenantId: string, page: { limit: number; skip: number }, deps: AgentDeps) {
  const [agents, rollups] = await Promise.all([
    deps.store.agents.list(tenantId),
    retentionDaysOf(tenantId, deps).then((days) => agentRollups(deps, tenantId, days)),
  ]);
  const items = await Promise.all(agents.slice(page.skip, page.skip + page.limit).map((a) => view(a, deps, rollups.get(a.id) ?? emptyRollup())));
  return { items, total: agents.length };
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
 * Removes the agent at once; its traces, signals and logs are purged in the background.
 * Queues the purge before deleting, and the purge deletes the agent too: when queuing fails nothing is
 * deleted and the client retries (503); when the delete here fails, the purge finishes it. Either way
 * an agent's traces, signals and logs are never left behind without their agent.
 */
export async function deleteAgent(tenantId: string, agentId: string, deps: { store: Pick<Store, 'agents'>; queue: QueuePort }) {
  if (!(await deps.store.agents.get(tenantId, agentId))) throw new NotFoundError('Agent');
  const purge: IngestMessage = { kind: 'purge-agent', tenantId, agentId };
  try {
    await deps.queue.send('ingest', [purge]);
  } catch (err) {
    throw new ServiceUnavailableError(5, { cause: err });
  }
  await deps.store.agents.delete(tenantId, agentId);
  return { id: agentId, deleted: true };
}
