import type { SigningMaterial } from '../accounts/signing-keys.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { requireFeature } from '../plans/entitlements.ts';
import { PLANS, type PlanKey } from '../plans/plans.ts';
import type { Clock } from '../ports.ts';
import type { StoredTraceSummary } from '../spans/ports.ts';
import { traceView } from '../spans/views.ts';
import type { Store } from '../store.ts';
import { type CursorKey, decodeCursor, encodeCursor, requestFingerprint } from './cursor.ts';
import { type LakeReader, LakeScanLimitError } from './ports.ts';
import { formatSearchQuery, parseSearchQuery, type SearchQuery } from './query.ts';
import type { LakeRow } from './schema.ts';
import { matchOf, type SearchMatch } from './snippets.ts';
import { spansOfTracesSql, traceSearchSql } from './sql.ts';

export interface SearchInput {
  q?: string;
  agentId?: string;
  /** Default: the plan's retention back from now. */
  startDate?: Date;
  /** Inclusive; default now. */
  endDate?: Date;
  limit: number;
  cursor?: string;
}

export interface SearchPorts {
  lake: LakeReader;
  store: Pick<Store, 'tenants' | 'agents' | 'traces'>;
  clock: Clock;
  signing: () => Promise<SigningMaterial>;
}

export interface SearchPage {
  hits: SearchHit[];
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null };
}

export interface SearchHit {
  trace: ReturnType<typeof traceView>;
  match: SearchMatch | null;
}

const DAY_MS = 86_400_000;
const CURSOR_KIND = 'search';

/** Where a page ends (the last hit's `position`), and the range the first page resolved (so that "now" does not move between pages). */
interface SearchPosition {
  after: string;
  from: number;
  to: number;
}
const isPosition = (p: unknown): p is SearchPosition => {
  const o = p as Partial<SearchPosition> | null;
  return typeof o === 'object' && o !== null && typeof o.after === 'string' && Number.isSafeInteger(o.from) && Number.isSafeInteger(o.to);
};

const iso = (ms: unknown) => (typeof ms === 'number' ? new Date(ms).toISOString() : null);
const text = (v: unknown) => (typeof v === 'string' ? v : null);
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** The distinct non-empty values of a span column, in first-seen order. */
const distinctOf = (spans: readonly LakeRow[], column: string): string[] => [
  ...new Set(spans.flatMap((s) => (typeof s[column] === 'string' && s[column] !== '' ? [s[column]] : []))),
];

/**
 * A hit's trace as the lake has it, for a trace whose summary the table no longer holds (deleted moments
 * ago, its lake rows not yet): its tools and error types from its spans; the lake keeps no alert marks,
 * tags or metadata. Only finished traces reach the lake.
 */
function lakeTraceView(row: LakeRow, spans: readonly LakeRow[]): ReturnType<typeof traceView> {
  return {
    traceId: String(row['trace_id']),
    agentId: text(row['agent_id']),
    agentName: text(row['agent_name']),
    name: String(row['name']),
    status: row['status'] === 'error' ? 'error' : 'ok',
    startTime: iso(row['start_ms']),
    endTime: iso(row['end_ms']),
    durationMs: typeof row['duration_ms'] === 'number' ? row['duration_ms'] : null,
    spanCount: num(row['span_count']),
    errorCount: num(row['error_count']),
    inputTokens: num(row['input_tokens']),
    outputTokens: num(row['output_tokens']),
    totalTokens: num(row['total_tokens']),
    cost: num(row['cost']),
    model: text(row['model']),
    models: JSON.parse(String(row['model_names'] ?? '[]')) as string[],
    toolNames: distinctOf(spans, 'tool_name'),
    errorTypes: distinctOf(spans, 'error_type'),
    tags: [],
    metadata: {},
    alertTypes: [],
    sessionId: text(row['session_id']),
    userId: text(row['user_id']),
    experimentId: text(row['experiment_id']),
    variant: text(row['variant']),
    complete: true,
    closedAt: null,
  };
}

export async function planOf(store: Pick<Store, 'tenants'>, tenantId: string): Promise<PlanKey> {
  const tenant = await store.tenants.get(tenantId);
  if (!tenant) throw new NotFoundError('Account');
  return tenant.subscription.plan;
}

/** A search Athena stopped at the workgroup's scan limit asks for too much at once: a 400 saying how to ask for less. */
async function withinScanLimit<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof LakeScanLimitError) {
      throw new ValidationError('startDate: this search would read more than one query may; narrow the dates (startDate, endDate), add agentId or more terms');
    }
    throw err;
  }
}

const cursorKeyOf = async (ports: Pick<SearchPorts, 'signing'>, tenantId: string): Promise<CursorKey> => ({ key: (await ports.signing()).cursorKey, tenantId });

/**
 * A page of a search, for a query already parsed and a plan already checked (`searchTraces`, `ask`).
 * Reads one page of traces (one more, to know whether more follow) and the spans of those traces only.
 */
export async function findTraces(tenantId: string, plan: PlanKey, query: SearchQuery, input: Omit<SearchInput, 'q'>, ports: SearchPorts): Promise<SearchPage> {
  if (input.agentId && !(await ports.store.agents.get(tenantId, input.agentId))) throw new NotFoundError('Agent');
  const nowMs = ports.clock.now().getTime();
  const signer = await cursorKeyOf(ports, tenantId);
  const fingerprint = requestFingerprint([
    formatSearchQuery(query),
    input.agentId ?? null,
    input.startDate?.getTime() ?? null,
    input.endDate?.getTime() ?? null,
  ]);
  const position = input.cursor ? decodeCursor(signer, CURSOR_KIND, fingerprint, input.cursor, nowMs, isPosition) : undefined;
  const range = position
    ? { from: position.from, to: position.to }
    : { from: input.startDate?.getTime() ?? nowMs - PLANS[plan].features.retention * DAY_MS, to: (input.endDate?.getTime() ?? nowMs) + 1 };

  const rows = await withinScanLimit(() =>
    ports.lake.query(
      traceSearchSql(ports.lake.dialect, {
        tenantId,
        query,
        startMs: range.from,
        endMs: range.to,
        nowMs,
        ...(input.agentId !== undefined && { agentId: input.agentId }),
        ...(position && { after: position.after }),
        limit: input.limit + 1,
      }),
    ),
  );
  const page = rows.slice(0, input.limit);
  const spans =
    page.length === 0
      ? []
      : await ports.lake.query(
          spansOfTracesSql(
            ports.lake.dialect,
            tenantId,
            page.map((r) => ({ traceId: String(r['trace_id']), startMs: Number(r['start_ms']) })),
          ),
        );
  const spansOf = new Map<string, LakeRow[]>();
  for (const span of spans) spansOf.set(String(span['trace_id']), [...(spansOf.get(String(span['trace_id'])) ?? []), span]);

  // Each hit as the trace lists show it now (its alerts, tags and metadata, which the lake does not
  // keep): one read of the page's summaries.
  const listed =
    page.length === 0
      ? new Map<string, StoredTraceSummary>()
      : await ports.store.traces.listed(
          tenantId,
          page.map((r) => String(r['trace_id'])),
        );

  const hasMore = rows.length > input.limit;
  const last = page.at(-1);
  return {
    hits: page.map((row) => {
      const summary = listed.get(String(row['trace_id']));
      const traceSpans = spansOf.get(String(row['trace_id'])) ?? [];
      return { trace: summary ? traceView(summary) : lakeTraceView(row, traceSpans), match: matchOf(query, traceSpans) };
    }),
    pagination: {
      limit: input.limit,
      hasMore,
      nextCursor: hasMore && last ? encodeCursor<SearchPosition>(signer, CURSOR_KIND, fingerprint, { after: String(last['position']), ...range }, nowMs) : null,
    },
  };
}

/** `GET /search/traces`: the plan's `deepSearch`, then the query (a 400 naming the term that does not parse). */
export async function searchTraces(tenantId: string, input: SearchInput, ports: SearchPorts): Promise<SearchPage> {
  const plan = await planOf(ports.store, tenantId);
  requireFeature(plan, 'deepSearch');
  return findTraces(tenantId, plan, parseSearchQuery(input.q ?? ''), input, ports);
}
