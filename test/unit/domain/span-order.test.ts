import { expect, it } from 'vitest';
import { orderSpans } from '#shared/domain/spans/views.ts';
import { storedSpan } from '../../support/spans.ts';

it('orders a chain of 20,000 spans nested one in another (deeper than the call stack goes)', () => {
  const spans = Array.from({ length: 20_000 }, (_, i) =>
    storedSpan({ traceId: 't', spanId: `s${i}`, parentSpanId: i === 0 ? null : `s${i - 1}`, startTimeMs: 1000 + i, agentName: i === 0 ? 'planner' : null }),
  );
  const ordered = orderSpans([...spans].reverse());
  expect(ordered.map(({ span, depth }) => [span.spanId, depth])).toEqual(spans.map((s, i) => [s.spanId, i]));
  // A span naming no agent is its nearest ancestor's, down the whole chain.
  expect(ordered.at(-1)!.span.agentName).toBe('planner');
});

it('puts each parent before its children, siblings by start, and spans of a parent loop once each', () => {
  const spans = [
    storedSpan({ traceId: 't', spanId: 'root', parentSpanId: null, startTimeMs: 0 }),
    storedSpan({ traceId: 't', spanId: 'b', parentSpanId: 'root', startTimeMs: 20 }),
    storedSpan({ traceId: 't', spanId: 'a', parentSpanId: 'root', startTimeMs: 10 }),
    storedSpan({ traceId: 't', spanId: 'a1', parentSpanId: 'a', startTimeMs: 15 }),
    storedSpan({ traceId: 't', spanId: 'x', parentSpanId: 'y', startTimeMs: 30 }),
    storedSpan({ traceId: 't', spanId: 'y', parentSpanId: 'x', startTimeMs: 31 }),
  ];
  expect(orderSpans(spans).map(({ span, depth }) => `${span.spanId}@${depth}`)).toEqual(['root@0', 'a@1', 'a1@2', 'b@1', 'x@0', 'y@1']);
});
