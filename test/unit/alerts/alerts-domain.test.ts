import { describe, expect, it } from 'vitest';
import { alertConfigPatch, DEFAULT_ALERT_CONFIG, effectiveAlertConfig } from '#shared/domain/alerts/config.ts';
import { detectInSpan, detectInTrace, propagatedFailures } from '#shared/domain/alerts/detect.ts';
import { type AlertAction, type AlertStatus, transition } from '#shared/domain/alerts/lifecycle.ts';
import { ValidationError } from '#shared/domain/errors.ts';
import type { StoredSpan, TraceSummary } from '#shared/domain/spans/summary.ts';
import { storedSpan } from '../../support/spans.ts';

const span = (over: Partial<StoredSpan> = {}): StoredSpan =>
  storedSpan({
    traceId: 't',
    spanId: 's',
    parentSpanId: 'root',
    name: 'call',
    kind: 'llm',
    agentName: 'a',
    agentId: 'agt',
    startTimeMs: 0,
    endTimeMs: 100,
    durationMs: 100,
    model: 'gpt-4o',
    inputTokens: 10,
    outputTokens: 10,
    cost: 0.01,
    ...over,
  });
const trace = (durationMs: number, complete = true): TraceSummary => ({
  traceId: 't',
  agentId: 'agt',
  agentName: 'a',
  name: 'run',
  rootSpanId: 'root',
  status: 'ok',
  startTimeMs: 0,
  endTimeMs: durationMs,
  durationMs,
  spanCount: 1,
  errorCount: 0,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  cost: 0,
  model: null,
  models: [],
  toolNames: [],
  errorTypes: [],
  tags: [],
  metadata: {},
  sessionId: null,
  userId: null,
  experimentId: null,
  variant: null,
  complete,
  closedAtMs: null,
});
const config = DEFAULT_ALERT_CONFIG;
const types = (found: { type: string }[]) => found.map((d) => d.type);

describe('alert configuration', () => {
  it('has the spec defaults', () => {
    expect(config.thresholds).toEqual({ duration: 5000, inputTokens: 100_000, outputTokens: 50_000, cost: 1, timeout: 30_000 });
    expect(config.alertTypes.error.cooldownMinutes).toBe(5);
    expect(config.llmAnalysis.alertTypes.nsfw.severity).toBe('critical');
  });

  it('merges a partial update onto the stored configuration; arrays replace', () => {
    const stored = { thresholds: { duration: 2000 }, contacts: { email: [{ address: 'a@example.com', enabled: true }] } };
    const merged = effectiveAlertConfig(stored, {
      thresholds: { cost: 0.5 },
      llmAnalysis: { alertTypes: { stuck: { threshold: 0.9 } } },
      contacts: { email: [] },
    });
    expect(merged.thresholds).toEqual({ duration: 2000, inputTokens: 100_000, outputTokens: 50_000, cost: 0.5, timeout: 30_000 });
    expect(merged.llmAnalysis.alertTypes.stuck).toEqual({ enabled: true, severity: 'warning', channels: ['email'], cooldownMinutes: 5, threshold: 0.9 });
    expect(merged.contacts.email).toEqual([]);
  });

  it.each([
    [{ llmAnalysis: { alertTypes: { hallucination: { threshold: 1.5 } } } }, 'llmAnalysis.alertTypes.hallucination.threshold'],
    [{ llmAnalysis: { alertTypes: { nsfw: { severity: 'urgent' } } } }, 'llmAnalysis.alertTypes.nsfw.severity'],
    [{ contacts: { email: [{ address: 'not-an-email', enabled: true }] } }, 'contacts.email.0.address'],
    [{ contacts: { sms: [{ phoneNumber: '555-0100', enabled: true }] } }, 'contacts.sms.0.phoneNumber'],
    [{ thresholds: { duration: -1 } }, 'thresholds.duration'],
    [{ thresholds: { timeout: 0 } }, 'thresholds.timeout'],
    [{ thresholds: { cost: 0 } }, 'thresholds.cost'],
    [{ thresholds: { duration: 0 } }, 'thresholds.duration'],
    [{ thresholds: { outputTokens: 0 } }, 'thresholds.outputTokens'],
    [{ thresholds: { duration: 10_000, timeout: 10_000 } }, 'thresholds.duration'],
    [{ contacts: { email: [{ address: 'dup@x.com' }, { address: 'DUP@x.com' }] } }, 'contacts.email.1.address'],
    [{ contacts: { sms: [{ phoneNumber: '+14155550100' }, { phoneNumber: '+14155550100' }] } }, 'contacts.sms.1.phoneNumber'],
    [{ alertTypes: { error: { channels: ['pager'] } } }, 'alertTypes.error.channels.0'],
    [{ llmAnalysis: { alertTypes: { sarcasm: {} } } }, 'llmAnalysis.alertTypes'],
  ])('refuses %j naming %s', (body, path) => {
    const result = alertConfigPatch.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path.join('.'))).toContain(path);
  });
});

describe('threshold detection: equal does not fire, just above does', () => {
  it.each([
    ['inputTokens', 'highInputTokens', 100_000],
    ['outputTokens', 'highOutputTokens', 50_000],
    ['cost', 'highCost', 1],
  ] as const)('%s', (field, type, threshold) => {
    expect(types(detectInSpan(span({ [field]: threshold }), config))).toEqual([]);
    const above = detectInSpan(span({ [field]: threshold + (field === 'cost' ? 0.000001 : 1) }), config);
    expect(above).toEqual([expect.objectContaining({ type, threshold, traceId: 't', spanId: 's' })]);
  });

  it('duration on a finished trace', () => {
    expect(types(detectInTrace(trace(5000), config))).toEqual([]);
    expect(detectInTrace(trace(5001), config)).toEqual([expect.objectContaining({ type: 'highDuration', value: 5001, threshold: 5000, spanId: null })]);
    expect(types(detectInTrace(trace(9000, false), config))).toEqual([]);
  });

  it('a trace reaching the timeout is a timeout (at or above, as the issue defines it), not also highDuration', () => {
    expect(types(detectInTrace(trace(29_999), config))).toEqual(['highDuration']);
    expect(types(detectInTrace(trace(30_000), config))).toEqual(['timeout']);
    // A span of it that failed with a timeout is the trace's timeout occurrence already.
    expect(types(detectInTrace(trace(30_000), config, true))).toEqual([]);
  });

  it('a failed span is an error; a failure that reads like a timeout is a timeout', () => {
    expect(types(detectInSpan(span({ status: 'error', errorType: 'ValueError' }), config))).toEqual(['error']);
    expect(types(detectInSpan(span({ status: 'error', statusMessage: 'upstream timed out' }), config))).toEqual(['timeout']);
    // Its error said it timed out, no threshold did: how long it ran, and no threshold beside it.
    expect(detectInSpan(span({ status: 'error', errorType: 'Timeout', durationMs: 500 }), config)).toEqual([
      expect.objectContaining({ type: 'timeout', value: 500, threshold: null }),
    ]);
    expect(types(detectInSpan(span({ status: 'error', errorType: 'DeadlineExceeded', statusMessage: 'deadline exceeded' }), config))).toEqual(['timeout']);
    expect(types(detectInSpan(span({ status: 'ok' }), config))).toEqual([]);
  });

  it("names the span's tool when its name does not", () => {
    const message = (over: Partial<StoredSpan>) =>
      detectInSpan(span({ kind: 'tool', status: 'error', statusMessage: 'Error: exploded', ...over }), config)[0]!.message;
    expect(message({ name: 'ai.toolCall', toolName: 'brokenTool' })).toBe('tool span "ai.toolCall" (tool "brokenTool") failed: Error: exploded');
    expect(message({ name: 'execute_tool brokenTool', toolName: 'brokenTool' })).toBe('tool span "execute_tool brokenTool" failed: Error: exploded');
    expect(message({ name: 'lookup', toolName: null })).toBe('tool span "lookup" failed: Error: exploded');
  });

  it('a failure passed up from a failed descendant is not another failure; its other checks still run', () => {
    const failed = (spanId: string, parentSpanId: string | null) => span({ spanId, parentSpanId, status: 'error' });
    const spans = [
      failed('root', null),
      failed('step', 'root'),
      failed('model-call', 'step'),
      span({ spanId: 'tool', parentSpanId: 'root' }),
      failed('sibling', 'root'),
    ];
    expect([...propagatedFailures(spans)].sort()).toEqual(['root', 'step']);
    expect(types(detectInSpan(span({ status: 'error', cost: 5 }), config, true))).toEqual(['highCost']);
    expect(propagatedFailures([failed('a', 'b'), failed('b', 'a')])).toEqual(new Set());
  });

  it('a disabled type never fires', () => {
    const quiet = effectiveAlertConfig({ alertTypes: { error: { enabled: false }, highCost: { enabled: false } } });
    expect(types(detectInSpan(span({ status: 'error', cost: 50 }), quiet))).toEqual([]);
  });

  it('custom thresholds apply', () => {
    const strict = effectiveAlertConfig({ thresholds: { inputTokens: 5 } });
    expect(types(detectInSpan(span({ inputTokens: 6 }), strict))).toEqual(['highInputTokens']);
  });
});

describe('alert lifecycle', () => {
  const table: Array<[AlertStatus, AlertAction, AlertStatus | 'refused']> = [
    ['open', 'acknowledge', 'acknowledged'],
    ['open', 'resolve', 'resolved'],
    ['open', 'reopen', 'refused'],
    ['acknowledged', 'resolve', 'resolved'],
    ['acknowledged', 'reopen', 'open'],
    ['acknowledged', 'acknowledge', 'refused'],
    ['resolved', 'reopen', 'open'],
    ['resolved', 'acknowledge', 'refused'],
    ['resolved', 'resolve', 'refused'],
  ];
  it.each(table)('%s --%s--> %s', (from, action, to) => {
    if (to === 'refused') {
      expect(() => transition(from, action)).toThrow(ValidationError);
      expect(() => transition(from, action)).toThrow(new RegExp(`alert that is ${from}`));
    } else expect(transition(from, action)).toBe(to);
  });
});
