import { ForbiddenError, ServiceUnavailableError, ValidationError } from '../errors.ts';
import { PLANS, UNLIMITED } from '../plans/plans.ts';
import { currentPeriod } from '../plans/subscription.ts';
import type { Clock, QueuePort } from '../ports.ts';
import { effectiveAgentName } from '../spans/model.ts';
import type { Store } from '../store.ts';
import { fitTelemetry, packMessages, type Telemetry } from './messages.ts';
import type { ItemError } from './native.ts';

export interface AcceptDeps {
  store: Pick<Store, 'tenants' | 'agents'>;
  queue: QueuePort;
  clock: Clock;
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
    if (name) names.set(name.trim().toLowerCase(), name.trim());
  }
  return [...names.values()];
}

/**
 * Checks the plan (trial still running, span quota, agent quota), queues the telemetry and counts the
 * spans against the period. Resolves only once the queue holds every message: an error before that
 * means nothing was accepted and the client should retry.
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

  const periodStart = period.start.toISOString();
  const spanLimit = plan.features.spans;
  if (spanLimit !== UNLIMITED && telemetry.spans.length > 0) {
    const used = await deps.store.tenants.spansUsed(tenantId, periodStart);
    if (used + telemetry.spans.length > spanLimit) {
      throw new ForbiddenError(
        `Span limit reached: the ${plan.name} plan allows ${spanLimit} spans per period; ${used} used, this request has ${telemetry.spans.length}`,
      );
    }
  }

  const agentLimit = plan.features.agents;
  if (agentLimit !== UNLIMITED) {
    const names = agentNamesOf(telemetry);
    const known = await Promise.all(names.map((n) => deps.store.agents.idForName(tenantId, n)));
    const fresh = names.filter((_, i) => !known[i]);
    if (fresh.length > 0 && (await deps.store.agents.count(tenantId)) + fresh.length > agentLimit) {
      throw new ForbiddenError(
        `Agent limit reached: the ${plan.name} plan allows ${agentLimit} agents; new agent(s) ${fresh.slice(0, 5).join(', ')} cannot be created`,
      );
    }
  }

  const messages = packMessages(tenantId, now.getTime(), telemetry);
  try {
    await deps.queue.send('ingest', messages);
  } catch (err) {
    // Part of a large request may already be queued; the client's retry is harmless (idempotent writes).
    throw new ServiceUnavailableError(5, { cause: err });
  }
  if (telemetry.spans.length > 0) {
    const expiresAt = Math.floor(period.end.getTime() / 1000) + YEAR_SECONDS;
    await deps.store.tenants.addSpansUsed(tenantId, periodStart, telemetry.spans.length, expiresAt);
  }
  return { accepted: total, rejected: invalid.length, errors: invalid };
}
