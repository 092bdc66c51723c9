import { NotFoundError } from '../errors.ts';
import { changeStatus } from '../lifecycle.ts';
import type { PageInput } from '../paging/page.ts';
import type { Clock, Ids } from '../ports.ts';
import type { Store } from '../store.ts';
import { assignVariant } from './assignment.ts';
import type { ExperimentDefinition } from './definition.ts';
import { assertAssigning, type ExperimentAction, type ExperimentStatus, transition } from './lifecycle.ts';
import type { ExperimentRecord } from './ports.ts';
import { experimentResults } from './results.ts';

export interface ExperimentDeps {
  store: Pick<Store, 'experiments' | 'agents'>;
  clock: Clock;
  ids: Ids;
}

/** An experiment as the API shows it. */
export function experimentView(e: ExperimentRecord) {
  const { tenantId: _tenant, ...view } = e;
  return view;
}

async function experimentOf(tenantId: string, experimentId: string, deps: { store: Pick<Store, 'experiments'> }, consistent = false) {
  const experiment = await deps.store.experiments.get(tenantId, experimentId, consistent);
  if (!experiment) throw new NotFoundError('Experiment');
  return experiment;
}

export async function createExperiment(tenantId: string, definition: ExperimentDefinition, deps: ExperimentDeps) {
  if (definition.agentId && !(await deps.store.agents.get(tenantId, definition.agentId))) throw new NotFoundError('Agent');
  const now = deps.clock.now().toISOString();
  const experiment: ExperimentRecord = {
    id: deps.ids.next('exp'),
    tenantId,
    ...definition,
    agentId: definition.agentId ?? null,
    status: 'draft',
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    stoppedAt: null,
  };
  await deps.store.experiments.create(experiment);
  return experimentView(experiment);
}

export async function listExperiments(
  tenantId: string,
  q: { agentId?: string; status?: ExperimentStatus; startDate?: Date; endDate?: Date },
  page: PageInput,
  deps: ExperimentDeps,
) {
  if (q.agentId && !(await deps.store.agents.get(tenantId, q.agentId))) throw new NotFoundError('Agent');
  const query = { agentId: q.agentId, status: q.status, startMs: q.startDate?.getTime(), endMs: q.endDate?.getTime() };
  const [result, total] = await Promise.all([deps.store.experiments.page(tenantId, query, page), deps.store.experiments.count(tenantId, query)]);
  return { ...result, items: result.items.map(experimentView), total: total.count, totalExact: total.exact };
}

export async function getExperiment(tenantId: string, experimentId: string, deps: ExperimentDeps) {
  return experimentView(await experimentOf(tenantId, experimentId, deps));
}

/** start / pause / stop. Written only if the status is still the one read, so concurrent changes cannot both win. */
export async function changeExperimentStatus(tenantId: string, experimentId: string, action: ExperimentAction, deps: Pick<ExperimentDeps, 'store' | 'clock'>) {
  return moveExperiment(tenantId, experimentId, (current) => transition(current, action), deps);
}

const AGENT_EXPERIMENTS_PAGE = { limit: 100, skip: 0 };

/**
 * Stops every experiment of a deleted agent that is not stopped yet, drafts too (one could otherwise
 * be started for an agent that is gone), as of now: none assigns variants again. Reads the agent's
 * experiments a page at a time.
 */
export async function stopExperimentsOfAgent(tenantId: string, agentId: string, deps: { store: Pick<Store, 'experiments'>; clock: Clock }) {
  let after: string | undefined;
  do {
    const page = await deps.store.experiments.page(tenantId, { agentId }, { ...AGENT_EXPERIMENTS_PAGE, after });
    for (const { id, status } of page.items) {
      if (status === 'stopped') continue;
      try {
        await moveExperiment(tenantId, id, () => 'stopped', deps);
      } catch (err) {
        // Deleted meanwhile: there is nothing left to stop.
        if (!(err instanceof NotFoundError)) throw err;
      }
    }
    after = page.hasMore ? page.next : undefined;
  } while (after !== undefined);
}

/** Moves the experiment to the status `statusAfter` answers for the current one (the same: nothing is written). */
async function moveExperiment(
  tenantId: string,
  experimentId: string,
  statusAfter: (current: ExperimentStatus) => ExperimentStatus,
  deps: { store: Pick<Store, 'experiments'>; clock: Clock },
) {
  return changeStatus(`experiment ${experimentId}`, async () => {
    const current = await experimentOf(tenantId, experimentId, deps, true);
    const status = statusAfter(current.status);
    if (status === current.status) return experimentView(current);
    const now = deps.clock.now().toISOString();
    const next: ExperimentRecord = {
      ...current,
      status,
      updatedAt: now,
      startedAt: current.startedAt ?? (status === 'running' ? now : null),
      stoppedAt: status === 'stopped' ? now : null,
    };
    return (await deps.store.experiments.replaceIfStatus(next, current.status)) ? experimentView(next) : undefined;
  });
}

/** The subject's variant: one eventually consistent read, no write, the same answer on every instance. */
export async function assignSubject(tenantId: string, experimentId: string, subjectId: string, deps: Pick<ExperimentDeps, 'store'>) {
  const experiment = await experimentOf(tenantId, experimentId, deps);
  assertAssigning(experiment.status);
  const variant = assignVariant(experiment, subjectId);
  return { experimentId, subjectId, variant: variant?.key ?? null, config: variant?.config ?? null };
}

export async function resultsOfExperiment(tenantId: string, experimentId: string, deps: Pick<ExperimentDeps, 'store'>) {
  const [experiment, observations, deleted] = await Promise.all([
    experimentOf(tenantId, experimentId, deps),
    deps.store.experiments.observations(tenantId, experimentId),
    deps.store.agents.deletedLately(tenantId),
  ]);
  return experimentResults(experiment, observations, new Set(deleted.agentIds));
}
