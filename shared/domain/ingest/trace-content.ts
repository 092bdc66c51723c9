import type { StoredSummary } from '../spans/ports.ts';
import { spanGroupsOf } from '../spans/span-groups.ts';
import type { StoredSpan } from '../spans/summary.ts';
import { characterCount, textPrefix } from '../well-formed.ts';

/**
 * The inputs, outputs and attributes one trace keeps whole, in bytes of UTF-8 (16 MiB). Each message
 * that adds spans to a trace reads its stored spans again, to summarise it and write it to the lake:
 * without a bound, a trace of a thousand model calls with 32 KB prompts (64 MB) made every message
 * read 64 MB, and the local service ran out of memory. Spans that arrive once a trace holds this much
 * keep their figures, names and ids, and the first KB of their input and output, with a marker.
 */
export const TRACE_CONTENT_BYTES = 16 * 1024 * 1024;
/** What a span arriving past the bound keeps of its input and output, in characters (code points). */
const HEAD_CHARS = 1024;
const OVER = `this trace already holds ${TRACE_CONTENT_BYTES / (1024 * 1024)} MB of inputs, outputs and attributes`;

const textBytes = (text: string | null) => (text === null ? 0 : Buffer.byteLength(text));

/** The bytes of a span's content that count toward its trace's bound. */
export const contentBytesOf = (span: Pick<StoredSpan, 'input' | 'output' | 'attributes'>): number =>
  textBytes(span.input) + textBytes(span.output) + (Object.keys(span.attributes).length === 0 ? 0 : Buffer.byteLength(JSON.stringify(span.attributes)));

function cutText(text: string | null): string | null {
  if (text === null) return text;
  const head = textPrefix(text, HEAD_CHARS);
  return head.length === text.length ? text : `${head}…[left out: ${characterCount(text.slice(head.length))} characters; ${OVER}]`;
}

/** The span with its input and output cut to their heads and its attributes left out, each saying why. */
function cutContent(span: StoredSpan): StoredSpan {
  const count = Object.keys(span.attributes).length;
  const attributes: StoredSpan['attributes'] = count === 0 ? {} : { 'aos.truncated': `${count} attributes left out: ${OVER}` };
  return { ...span, input: cutText(span.input), output: cutText(span.output), attributes };
}

/**
 * The messages' spans with the content bound applied: a span group (one message's spans of one trace)
 * keeps its content while its trace holds less than TRACE_CONTENT_BYTES (what was stored, per its
 * summary, and the groups before it in the batch), and is cut once it holds that much. A group the
 * summary lists already (a message delivered again, or the same spans sent again) is kept as sent:
 * cutting it would replace what was stored whole the first time. So a trace holds at most the bound
 * and a message's worth of spans more.
 */
export function boundTraceContent<A extends { spans: StoredSpan[] }>(arrivals: readonly A[], stored: ReadonlyMap<string, StoredSummary>): A[] {
  const held = new Map<string, number>();
  return arrivals.map((arrival) => {
    const groups = spanGroupsOf(arrival.spans).map(({ traceId, groupId, spans }) => {
      const summary = stored.get(traceId);
      if (summary?.spanGroups?.includes(groupId)) return spans;
      const before = held.get(traceId) ?? summary?.contentBytes ?? 0;
      if (before >= TRACE_CONTENT_BYTES) return spans.map(cutContent);
      held.set(traceId, before + spans.reduce((sum, span) => sum + contentBytesOf(span), 0));
      return spans;
    });
    return { ...arrival, spans: groups.flat() };
  });
}
