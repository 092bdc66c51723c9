import * as z from 'zod';
import { ValidationError } from '../domain/errors.ts';

function describe(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  const message = /received undefined$/.test(issue.message) ? 'is required' : issue.message;
  return field ? `${field}: ${message}` : message;
}

/** Parses with zod; on failure a ValidationError whose message names every offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, where?: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 10).map(describe).join('; ');
  throw new ValidationError(where ? `Invalid ${where}: ${problems}` : problems);
}

