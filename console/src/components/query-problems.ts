import * as z from 'zod/mini';
import { describeIssue } from '#shared/schemas/messages.ts';

/**
 * A list's query as the URL holds it, checked with the very zod schema the API validates it with:
 * each problem under the parameter it names, in the API's words. A query with problems is not sent.
 */
export function queryProblems(schema: z.ZodMiniType, query: Record<string, string | undefined>): Map<string, string> {
  const result = z.safeParse(schema, query);
  const problems = new Map<string, string>();
  if (!result.success) for (const issue of result.error.issues) problems.set(issue.path.map(String).join('.'), describeIssue(issue, 'query'));
  return problems;
}
