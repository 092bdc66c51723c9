import * as z from 'zod/mini';
import { ValidationError } from '../domain/errors.ts';
import { describeIssue } from '../schemas/messages.ts';
import { MAX_BODY_NESTING, unstorablePart } from '../schemas/storable.ts';

/** Parses with zod; on failure a ValidationError whose message names every offending field. */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, input: unknown, where?: string): z.infer<S> {
  const result = z.safeParse(schema, input);
  if (result.success) return result.data;
  const problems = result.error.issues
    .slice(0, 10)
    .map((issue) => describeIssue(issue))
    .join('; ');
  throw new ValidationError(where ? `Invalid ${where}: ${problems}` : problems);
}

/** Refuses a body holding a number the store cannot hold, or nesting deeper than it keeps, naming where. */
export function refuseUnstorable(body: unknown): void {
  const found = unstorablePart(body, MAX_BODY_NESTING);
  if (found) throw new ValidationError(`Invalid body: ${found.path.map(String).join('.') || 'body'}: ${found.message}`);
}
