import { describe, expect, it } from 'vitest';
import type { TenantRecord } from '#shared/domain/accounts/ports.ts';
import type { AgentRecord } from '#shared/domain/agents/ports.ts';
import { type AlertConfigPatch, effectiveAlertConfig } from '#shared/domain/alerts/config.ts';
import { queueEvaluations } from '#shared/domain/evaluation/jobs.ts';
import { isSampled, typesToEvaluate } from '#shared/domain/evaluation/policy.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import type { QueuePort } from '#shared/domain/ports.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';

const entitled = { evaluations: true };
const on = (patch: AlertConfigPatch['llmAnalysis'] = {}) => effectiveAlertConfig({ llmAnalysis: { enabled: true, ...patch } });

describe('sampling', () => {
  it('decides by trace id alone: the same answer every time', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `trace-${i}`);
    expect(ids.map((id) => isSampled(id, 0.5))).toEqual(ids.map((id) => isSampled(id, 0.5)));
  });

  it('takes about the share the rate asks for, all at 1 and none at 0', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => `${i.toString(16)}-trace`);
    const share = ids.filter((id) => isSampled(id, 0.25)).length / ids.length;
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.28);
    expect(ids.every((id) => isSampled(id, 1))).toBe(true);
    expect(ids.some((id) => isSampled(id, 0))).toBe(false);
  });

  it('keeps a sampled trace sampled when the rate grows', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `t${i}`);
    expect(ids.filter((id) => isSampled(id, 0.1)).every((id) => isSampled(id, 0.3))).toBe(true);
  });
});

describe('what is evaluated', () => {
  it('every enabled type when the plan includes evaluations and LLM analysis is on', () => {
    expect(typesToEvaluate(entitled, on({ alertTypes: { nsfw: { enabled: false } } }), 't')).toEqual(['hallucination', 'stuck', 'quality']);
  });

  it('nothing without the entitlement, with LLM analysis off (the default), or outside the sample', () => {
    expect(typesToEvaluate({ evaluations: false }, on(), 't')).toEqual([]);
    expect(typesToEvaluate(entitled, effectiveAlertConfig(undefined), 't')).toEqual([]);
    expect(typesToEvaluate(entitled, on({ samplingRate: 0 }), 't')).toEqual([]);
  });

  it('accepts a sampling rate from 0 to 1 in the configuration, 1 by default', () => {
    expect(effectiveAlertConfig(undefined).llmAnalysis.samplingRate).toBe(1);
    expect(effectiveAlertConfig(undefined, { llmAnalysis: { samplingRate: 0.2 } }).llmAnalysis.samplingRate).toBe(0.2);
  });
});

describe('queueing evaluations from the ingest worker', () => {
  const tenant: TenantRecord = { id: 'tnt_1', ownerUserId: 'usr_1', subscription: newTrialSubscription(new Date()), createdAt: new Date().toISOString() };
  const agent = (id: string, alertConfig?: AlertConfigPatch) => ({ id, tenantId: 'tnt_1', name: id, alertConfig }) as AgentRecord;
  const summary = (traceId: string, agentId: string | null) => ({ traceId, agentId }) as TraceSummary;

  it('queues one job per finished trace of an agent with LLM analysis on, in one send', async () => {
    const agents = new Map([
      ['agt_on', agent('agt_on', { llmAnalysis: { enabled: true } })],
      ['agt_off', agent('agt_off')],
    ]);
    const sent: Array<{ queueId: string; messages: readonly unknown[] }> = [];
    const queue: QueuePort = { send: async (queueId, messages) => void sent.push({ queueId, messages }) };
    const store = { agents: { get: async (_: string, id: string) => agents.get(id) } } as never;
    await queueEvaluations(
      tenant,
      [summary('t1', 'agt_on'), summary('t2', 'agt_off'), summary('t3', null), summary('t4', 'agt_gone'), summary('t5', 'agt_on')],
      { store, queue },
    );
    expect(sent).toEqual([
      {
        queueId: 'evaluate',
        messages: [
          { kind: 'evaluate-trace', tenantId: 'tnt_1', traceId: 't1' },
          { kind: 'evaluate-trace', tenantId: 'tnt_1', traceId: 't5' },
        ],
      },
    ]);
  });

  it('sends nothing when no trace qualifies', async () => {
    const queue: QueuePort = { send: async () => expect.fail('nothing should be sent') };
    await queueEvaluations(tenant, [summary('t1', 'agt_off')], { store: { agents: { get: async () => agent('agt_off') } } as never, queue });
  });
});
