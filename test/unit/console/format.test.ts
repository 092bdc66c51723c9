import { expect, it } from 'vitest';
import { formatCost } from '../../../console/src/components/cost.ts';
import { formatDuration } from '../../../console/src/components/duration.ts';

it('says a duration in the units that read best, never 60 of the smaller unit', () => {
  expect(formatDuration(850)).toBe('850 ms');
  expect(formatDuration(999.7)).toBe('1.00 s');
  expect(formatDuration(9_994)).toBe('9.99 s');
  expect(formatDuration(59_600)).toBe('59.6 s');
  expect(formatDuration(59_960)).toBe('1 min 0 s');
  expect(formatDuration(125_000)).toBe('2 min 5 s');
  expect(formatDuration(3_599_600)).toBe('1 h 0 min');
  expect(formatDuration(14 * 3_600_000 + 46 * 60_000)).toBe('14 h 46 min');
  expect(formatDuration(86_370_000)).toBe('1 d 0 h');
  expect(formatDuration(3 * 86_400_000 + 5 * 3_600_000)).toBe('3 d 5 h');
  expect(formatDuration(null)).toBe('—');
});

it('says a cost precisely enough to tell it from a threshold it crossed', () => {
  expect(formatCost(0.0501)).toBe('$0.0501');
  expect(formatCost(0.05)).toBe('$0.05');
  expect(formatCost(0.000012345)).toBe('$0.00001235');
  expect(formatCost(0.123456)).toBe('$0.1235');
  expect(formatCost(1234.5)).toBe('$1,234.50');
  expect(formatCost(0)).toBe('$0');
  expect(formatCost(null)).toBe('—');
});
