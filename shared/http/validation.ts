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

/** The parameter names an object schema takes (through pipes and checks); undefined for any other schema. */
function parameterNames(schema: z.ZodMiniType): string[] | undefined {
  const def = schema._zod.def as { type: string; shape?: Record<string, unknown>; in?: z.ZodMiniType };
  if (def.type === 'object' && def.shape) return Object.keys(def.shape);
  if (def.type === 'pipe' && def.in) return parameterNames(def.in);
  return undefined;
}

/**
 * Refuses a query parameter the route does not take, naming it and those it takes: a misspelt filter
 * (`toolname` for `toolName`) would otherwise be left out without a word, and the list answered whole.
 */
export function refuseUnknownParameters(schema: z.ZodMiniType, query: Record<string, unknown>): void {
  const names = parameterNames(schema);
  if (!names) return;
  const unknown = Object.keys(query).filter((name) => !names.includes(name));
  if (unknown.length === 0) return;
  const near = (name: string) => names.find((known) => known.toLowerCase() === name.toLowerCase());
  const problems = unknown.slice(0, 10).map((name) => `${name}: is not a parameter of this route${near(name) ? ` (did you mean ${near(name)}?)` : ''}`);
  throw new ValidationError(`Invalid query: ${problems.join('; ')}; it takes ${names.join(', ')}`);
}

/**
 * Refuses a query parameter given more than once (`tag=a&tag=b`), naming it: API Gateway joins the
 * values with commas, which a text filter would take as one value holding a comma (the tag `a,b`) and
 * answer as if it matched nothing. Read from the raw query string, the only place the repeat shows.
 */
export function refuseRepeatedParameters(rawQueryString: string | undefined): void {
  if (!rawQueryString) return;
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const name of new URLSearchParams(rawQueryString).keys()) {
    if (seen.has(name)) repeated.add(name);
    seen.add(name);
  }
  if (repeated.size === 0) return;
  const problems = [...repeated].slice(0, 10).map((name) => `${name}: must be given once`);
  throw new ValidationError(`Invalid query: ${problems.join('; ')} (each parameter takes one value)`);
}

/** Refuses a body holding a number the store cannot hold, or nesting deeper than it keeps, naming where. */
export function refuseUnstorable(body: unknown): void {
  const found = unstorablePart(body, MAX_BODY_NESTING);
  if (found) throw new ValidationError(`Invalid body: ${found.path.map(String).join('.') || 'body'}: ${found.message}`);
}
