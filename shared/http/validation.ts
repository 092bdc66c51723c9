import * as z from 'zod/mini';
import { ValidationError } from '../domain/errors.ts';
import { describeIssue } from '../schemas/messages.ts';

/** Parses with zod; on failure a ValidationError whose message names every offending field. */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, input: unknown, where?: string): z.infer<S> {
  const result = z.safeParse(schema, input);
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 10).map((issue) => describeIssue(issue)).join('; ');
  throw new ValidationError(where ? `Invalid ${where}: ${problems}` : problems);
}

