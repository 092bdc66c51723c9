import { expect, it } from 'vitest';
import * as z from 'zod/mini';
import { alertConfigPatch } from '#shared/domain/alerts/config.ts';
import { fieldProblem } from '../../../console/src/components/field-problem.ts';

/** What the alert configuration editor says beside each field of this patch, by the field's path. */
function problemsOf(patch: unknown): Record<string, string> {
  const result = z.safeParse(alertConfigPatch, patch);
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), fieldProblem(issue)]));
}

const type = (cooldownMinutes: number) => ({ alertTypes: { error: { enabled: true, severity: 'high', channels: ['email'], cooldownMinutes } } });

it("says what to do in plain words, never zod's", () => {
  expect(problemsOf({ thresholds: { duration: Number.NaN } })).toEqual({ 'thresholds.duration': 'Enter a number.' });
  expect(problemsOf({ thresholds: { duration: -1 } })).toEqual({ 'thresholds.duration': 'Must be more than 0.' });
  expect(problemsOf({ thresholds: { timeout: 0 } })).toEqual({ 'thresholds.timeout': 'Must be more than 0.' });
  expect(problemsOf({ thresholds: { duration: 20_000, timeout: 10_000 } })).toEqual({
    'thresholds.duration':
      'Must be below the timeout threshold (10000 ms): a trace that reaches the timeout is a timeout alert, so highDuration could never fire.',
  });
  expect(problemsOf({ contacts: { email: [{ address: 'dup@x.com' }, { address: 'DUP@x.com' }] } })).toEqual({
    'contacts.email.1.address': 'Repeats e-mail address 1 (addresses are compared without case).',
  });
  expect(problemsOf({ llmAnalysis: { samplingRate: 2 } })).toEqual({ 'llmAnalysis.samplingRate': 'Must be at most 1.' });
  expect(problemsOf(type(20_000))).toEqual({ 'alertTypes.error.cooldownMinutes': 'Must be at most 10,080.' });
  expect(problemsOf({ contacts: { email: [{ address: 'x', enabled: true }] } })).toEqual({
    'contacts.email.0.address': 'Enter an e-mail address, such as name@example.com.',
  });
  expect(problemsOf({ contacts: { sms: [{ phoneNumber: '123', enabled: true }] } })).toEqual({
    'contacts.sms.0.phoneNumber': 'Must be an E.164 phone number such as +14155550100.',
  });
});

it('asks for a whole number where a fraction was typed into a field of whole numbers', () => {
  expect(problemsOf(type(2.5))).toEqual({ 'alertTypes.error.cooldownMinutes': 'Enter a whole number.' });
  expect(problemsOf({ thresholds: { inputTokens: 1.5 } })).toEqual({ 'thresholds.inputTokens': 'Enter a whole number.' });
});
