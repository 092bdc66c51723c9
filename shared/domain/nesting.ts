/**
 * How deep a native ingestion body (`/spans`, `/logs`, `/signals`) is read. Those routes keep what the
 * store cannot hold rather than refusing it (an attribute value deeper than 16 levels is kept as JSON
 * text), but text of a value thousands of levels deep cannot even be made: JSON.stringify, like any
 * recursive walk, runs out of stack (a 5,000-level value answered 500). What is deeper than this
 * stands as `TOO_DEEP_IN_BODY`, which leaves every value 32 levels of its own below the deepest place
 * one sits in a body (a span event's attributes, six levels down).
 */
export const MAX_INGEST_BODY_DEPTH = 40;
export const TOO_DEEP_IN_BODY = `…[nested more than ${MAX_INGEST_BODY_DEPTH} levels into the request body: left out]`;

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] => typeof value === 'object' && value !== null && !ArrayBuffer.isView(value);

/**
 * Parsed JSON with every object or array nested deeper than `MAX_INGEST_BODY_DEPTH` levels (the body
 * itself is level 1) replaced by `TOO_DEEP_IN_BODY`, in place. Walked without recursion, so no depth
 * a body may have overflows the stack.
 */
export function leaveOutTooDeep<T>(body: T): T {
  if (!isContainer(body)) return body;
  const pending: Array<{ node: Record<string, unknown> | unknown[]; depth: number }> = [{ node: body, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next;
    const record = node as Record<string, unknown>;
    // An own key `__proto__` (JSON.parse makes one) is an ordinary data property: assignment sets it.
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      const child = record[key as string];
      if (!isContainer(child)) continue;
      if (depth >= MAX_INGEST_BODY_DEPTH) record[key as string] = TOO_DEEP_IN_BODY;
      else pending.push({ node: child, depth: depth + 1 });
    }
  }
  return body;
}
