import { expect, it } from 'vitest';
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
