import { implicitAgent } from '../agents/implicit.ts';
import { agentNameKey } from '../agents/ports.ts';
import { ForbiddenError, ServiceUnavailableError, ValidationError } from '../errors.ts';
import { PLANS, type Plan, UNLIMITED } from '../plans/plans.ts';
import { currentPeriod } from '../plans/subscription.ts';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import { effectiveAgentName } from '../spans/model.ts';
import type { Store } from '../store.ts';
import { fitTelemetry, packMessages, type Telemetry } from './messages.ts';
import type { ItemError } from './native.ts';

export interface AcceptDeps {
  store: Pick<Store, 'tenants' | 'agents'>;
  queue: QueuePort;
  clock: Clock;
  ids: Ids;
}

export interface AcceptResult {
  accepted: number;
  rejected: number;
  errors: ItemError[];
}

const YEAR_SECONDS = 366 * 86_400;

function agentNamesOf(t: Telemetry): string[] {
  const names = new Map<string, string>();
  for (const name of [...t.spans.map(effectiveAgentName), ...t.signals.map((s) => s.agentName), ...t.logs.map((l) => l.agentName)]) {
    if (name) names.set(agentNameKey(name), name.trim());
  }
  return [...names.values()];
}

/** The value of a settled promise, or its error thrown. */
function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** The names the tenant has no agent for yet (`consistent`: as of now, every create before included). */
async function freshNames(tenantId: string, names: readonly string[], deps: AcceptDeps, consistent = false): Promise<string[]> {
  const known = await Promise.all(names.map((n) => deps.store.agents.idForName(tenantId, n, consistent)));
  return names.filter((_, i) => !known[i]);
}

/** The agents the request names that the tenant has none of yet, on a plan with an agent limit (none to check on another). */
async function agentsToCheck(tenantId: string, telemetry: Telemetry, plan: Plan, deps: AcceptDeps): Promise<string[]> {
  return plan.features.agents === UNLIMITED ? [] : freshNames(tenantId, agentNamesOf(telemetry), deps);
}

/** Why a request naming new agents is refused whole: how many the plan has room for, and which it names. */
function agentLimitReached(plan: Plan, existing: number, fresh: readonly string[]): ForbiddenError {
  const room = Math.max(0, plan.features.agents - existing);
  const shown = fresh.slice(0, 5).join(', ');
  const named = fresh.length > 5 ? `${shown} and ${fresh.length - 5} more` : shown;
  return new ForbiddenError(
    `Agent limit reached: the ${plan.name} plan allows ${plan.features.agents} agents and ${existing} exist, so ${room === 0 ? 'none' : `${room} more`} can be created; this request names ${fresh.length} new (${named}) and none of it was accepted`,
  );
}

/**
 * Queues the request (`queue`) if the plan has room for the new agents it names, and creates them,
 * all under the tenant's creation lock: requests at once naming new agents cannot each pass the
 * count, and one refused, or whose queueing fails, creates none. Created here, the worker finds them.
 */
async function queueWithNewAgents(tenantId: string, names: readonly string[], plan: Plan, deps: AcceptDeps, queue: () => Promise<void>): Promise<void> {
  await deps.store.agents.withCreationLock(tenantId, async () => {
    const fresh = await freshNames(tenantId, names, deps, true);
    const agentLimit = plan.features.agents;
    const existing = fresh.length > 0 ? await deps.store.agents.count(tenantId, true) : 0;
    if (fresh.length > 0 && existing + fresh.length > agentLimit) throw agentLimitReached(plan, existing, fresh);
    await queue();
    const now = deps.clock.now();
    // Queued already: should a create fail, the worker creates the agent as it stores the message.
    await Promise.all(fresh.map((name) => deps.store.agents.ensure(implicitAgent(tenantId, name, deps.ids, now)).catch(() => undefined)));
  });
}

/**
 * Checks the plan (trial still running, span quota, agent quota), counts the spans against the period
 * and queues the telemetry. Resolves only once the queue holds every message: an error before that
 * means nothing was accepted (and its count was given back) and the client should retry.
 */
export async function acceptTelemetry(tenantId: string, sent: Telemetry, invalid: ItemError[], deps: AcceptDeps): Promise<AcceptResult> {
  // Cut to what the queue and the store take before anything reads it: an agent name is a key.
  const telemetry = fitTelemetry(sent);
  const total = telemetry.spans.length + telemetry.signals.length + telemetry.logs.length;
  if (total === 0) {
    const detail = invalid
      .slice(0, 5)
      .map((e) => `[${e.index}] ${e.message}`)
      .join('; ');
    throw new ValidationError(`Nothing to accept: every item is invalid: ${detail}`);
  }
  const tenant = await deps.store.tenants.get(tenantId);
  if (!tenant) throw new ForbiddenError('This account no longer exists');
  const now = deps.clock.now();
  const plan = PLANS[tenant.subscription.plan];
  const period = currentPeriod(tenant.subscription, now);
  if (tenant.subscription.status === 'canceled') throw new ForbiddenError('The subscription is canceled; ingestion is paused');
  if (tenant.subscription.plan === 'trial' && now >= period.end) {
    throw new ForbiddenError(`The ${plan.name} ended on ${period.end.toISOString().slice(0, 10)}; choose a plan to keep ingesting`);
  }

  const spans = telemetry.spans.length;
  const limit = plan.features.spans === UNLIMITED ? undefined : plan.features.spans;
  const periodStart = period.start.toISOString();
  const count = (n: number, within?: number) =>
    deps.store.tenants.countSpans(tenantId, periodStart, n, Math.floor(period.end.getTime() / 1000) + YEAR_SECONDS, within);
  let counted = false;
  try {
    // Counted before they are queued, so that the count is the quota check; the new agents are looked up meanwhile.
    const [reserved, newAgents] = await Promise.allSettled([spans > 0 ? count(spans, limit) : false, agentsToCheck(tenantId, telemetry, plan, deps)]);
    counted = settledValue(reserved);
    if (spans > 0 && !counted) {
      const used = await deps.store.tenants.spansUsed(tenantId, periodStart).catch(() => undefined);
      const usedText = used === undefined ? '' : `; ${used} used`;
      throw new ForbiddenError(`Span limit reached: the ${plan.name} plan allows ${limit} spans per period${usedText}, this request has ${spans}`);
    }
    const names = settledValue(newAgents);
    const queue = async () => {
      try {
        await deps.queue.send('ingest', packMessages(tenantId, now.getTime(), telemetry));
      } catch (err) {
        // Part of a large request may already be queued; the client's retry is harmless (idempotent writes).
        throw new ServiceUnavailableError(5, { cause: err });
      }
    };
    await (names.length === 0 ? queue() : queueWithNewAgents(tenantId, names, plan, deps, queue));
  } catch (err) {
    // What was counted for a request not accepted is given back. Should that fail too, the counter
    // stays this request's spans too high: the quota is reached that much earlier, nothing is lost.
    if (counted) await count(-spans).catch(() => false);
    throw err;
  }
  return { accepted: total, rejected: invalid.length, errors: invalid };
}
