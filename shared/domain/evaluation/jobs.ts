import type { TenantRecord } from '../accounts/ports.ts';
import { effectiveAlertConfig } from '../alerts/config.ts';
import { PLANS } from '../plans/plans.ts';
import type { QueuePort } from '../ports.ts';
import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import type { EvaluationJob } from './job-message.ts';
import { typesToEvaluate } from './policy.ts';

/**
 * Queues an evaluation of each finished trace whose agent has LLM analysis on (and the trace in its
 * sample, and the plan the entitlement). Called by the ingest worker once per trace, when its root
 * arrives; a redelivered message queues the job again, which the evaluate worker recognises as done.
 */
export async function queueEvaluations(
  tenant: TenantRecord,
  finished: readonly TraceSummary[],
  deps: { store: Pick<Store, 'agents'>; queue: QueuePort },
): Promise<void> {
  const features = PLANS[tenant.subscription.plan].features;
  const agentIds = [...new Set(finished.map((t) => t.agentId).filter((id) => id !== null))];
  const agents = new Map(await Promise.all(agentIds.map(async (id) => [id, await deps.store.agents.get(tenant.id, id)] as const)));
  const wanted = (t: TraceSummary) => {
    const agent = t.agentId === null ? undefined : agents.get(t.agentId);
    return agent !== undefined && typesToEvaluate(features, effectiveAlertConfig(agent.alertConfig), t.traceId).length > 0;
  };
  const jobs = finished.filter(wanted).map((t): EvaluationJob => ({ kind: 'evaluate-trace', tenantId: tenant.id, traceId: t.traceId }));
  if (jobs.length > 0) await deps.queue.send('evaluate', jobs);
}
