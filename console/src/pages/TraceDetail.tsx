import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, type Schemas, unwrap } from '../api/client';
import { AgentLink } from '../components/AgentLink';
import { Content, type Json, JsonView } from '../components/Content';
import { TraceState, TraceStatusBadge } from '../components/TraceState';
import { showBidiControls, UserText } from '../components/UserText';
import { Badge, Empty, ErrorMessage, formatCost, formatDuration, formatNumber, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

type Span = Schemas['Span'];
type Trace = Schemas['SpansGetTraceResponse']['data'];

const KIND_LABEL: Record<Span['kind'], string> = { agent: 'AGT', llm: 'LLM', tool: 'TOOL', retrieval: 'RET', chain: 'CHN', embedding: 'EMB', other: 'SPAN' };
const ROW_HEIGHT = 30;
const INDENT_PX = 14;
/**
 * Deeper than this a row is indented no further and says its depth instead: at 14 px a level, a
 * chain of a few dozen spans would push the names (and then the fold arrows) out of their column.
 */
const MAX_INDENTED_DEPTH = 12;
/** The depth number takes the room of this many levels of indentation, so deep rows line up with the deepest indented one. */
const DEPTH_MARKER_LEVELS = 3;

interface Row {
  span: Span;
  depth: number;
  hasChildren: boolean;
  /** The span's agent where it is not its parent's (the trace's, for a top span): where a sub-agent takes over. */
  handedTo: string | null;
  /** Its parent is in the trace but the links from it loop back (to itself, or round a ring of spans): it starts a subtree here instead. */
  parentLinkLoops: boolean;
}

/** The latest time the trace's spans report: an end, or a start where a span has not ended. */
const lastActivity = (spans: readonly Span[]): string | null =>
  spans.reduce<string | null>((latest, s) => {
    const at = s.endTime ?? s.startTime;
    return latest === null || Date.parse(at) > Date.parse(latest) ? at : latest;
  }, null);

/**
 * The spans in tree order, as the API's `orderSpans` puts them: each parent before its children,
 * siblings by start time (then id); a span whose parent is not in the trace, or is itself, is a top.
 * Spans whose parent links form a loop are reached from no top: the first of them to start begins a
 * subtree of its own, breaking the loop where it was entered, so every span is shown exactly once.
 */
function treeRows(spans: readonly Span[], traceAgentId: string | null): Row[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const byStart = [...spans].sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime) || a.spanId.localeCompare(b.spanId));
  const children = new Map<string, Span[]>();
  const tops: Span[] = [];
  for (const span of byStart) {
    const parent = span.parentSpanId;
    if (parent && ids.has(parent) && parent !== span.spanId) (children.get(parent) ?? children.set(parent, []).get(parent)!).push(span);
    else tops.push(span);
  }
  const rows: Row[] = [];
  const placed = new Set<string>();
  for (const top of [...tops, ...byStart]) {
    if (placed.has(top.spanId)) continue;
    const stack = [{ span: top, depth: 0, parentAgentId: traceAgentId }];
    while (stack.length > 0) {
      const { span, depth, parentAgentId } = stack.pop()!;
      placed.add(span.spanId);
      // In a loop, the span it was entered by is among its children, and already placed.
      const kids = (children.get(span.spanId) ?? []).filter((kid) => !placed.has(kid.spanId));
      const handedTo = span.agentId !== null && span.agentId !== parentAgentId ? (span.agentName ?? span.agentId) : null;
      const parentLinkLoops = depth === 0 && span.parentSpanId !== null && ids.has(span.parentSpanId);
      rows.push({ span, depth, hasChildren: kids.length > 0, handedTo, parentLinkLoops });
      const agentId = span.agentId ?? parentAgentId;
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i]!, depth: depth + 1, parentAgentId: agentId });
    }
  }
  return rows;
}

/** The rows left when the folded spans' subtrees (the rows after each, deeper than it) are left out. */
function unfoldedRows(rows: readonly Row[], collapsed: ReadonlySet<string>): Row[] {
  const shown: Row[] = [];
  let foldedDepth = Number.POSITIVE_INFINITY;
  for (const row of rows) {
    if (row.depth > foldedDepth) continue;
    foldedDepth = collapsed.has(row.span.spanId) ? row.depth : Number.POSITIVE_INFINITY;
    shown.push(row);
  }
  return shown;
}

export default function TraceDetail() {
  const { traceId = '' } = useParams();
  // A trace larger than one answer comes in pages of spans (spansNextCursor): all are read, one after another.
  const pages = useInfiniteQuery({
    queryKey: ['trace', traceId],
    queryFn: async ({ pageParam }) =>
      unwrap(await api.GET('/spans/traces/{traceId}', { params: { path: { traceId }, query: pageParam ? { cursor: pageParam } : {} } })).data,
    initialPageParam: '',
    getNextPageParam: (page) => page.spansNextCursor ?? undefined,
  });
  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = pages;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isError) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isError, fetchNextPage]);
  const trace = useMemo(() => {
    const [first, ...rest] = pages.data?.pages ?? [];
    if (!first) return undefined;
    // A span that moved after the cursor as the trace grew between two pages comes twice: kept once.
    const spans = new Map([...first.spans, ...rest.flatMap((page) => page.spans)].map((span) => [span.spanId, span]));
    return { ...first, spans: [...spans.values()] };
  }, [pages.data]);
  if (pages.isLoading) return <Loading />;
  if (!trace) return <ErrorMessage error={pages.error} />;
  return (
    <>
      {isError ? <ErrorMessage error={pages.error} /> : null}
      {hasNextPage && !isError ? (
        <p className="muted small" role="status">
          Reading the spans: {formatNumber(trace.spans.length)} of {formatNumber(trace.spanCount)} so far.
        </p>
      ) : null}
      {/* Keyed by the trace: what was folded or chosen in one trace is not carried to another. */}
      <TraceView key={trace.traceId} trace={trace} />
    </>
  );
}

function TraceView({ trace }: { trace: Trace }) {
  const [search, setSearch] = useSearchParams();
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const tree = useMemo(() => treeRows(trace.spans, trace.agentId), [trace.spans, trace.agentId]);
  const rows = useMemo(() => unfoldedRows(tree, collapsed), [tree, collapsed]);
  const selectedId = search.get('span') ?? trace.spans[0]?.spanId;
  const selected = trace.spans.find((s) => s.spanId === selectedId);
  // The span the arrow keys move from: the URL says the selection only after a navigation, and key presses come faster.
  const lastChosenId = useRef<string | undefined>(undefined);
  const select = (spanId: string) => {
    lastChosenId.current = spanId;
    const next = new URLSearchParams(search);
    next.set('span', spanId);
    setSearch(next, { replace: true });
  };
  const setFolded = (spanId: string, folded: boolean) =>
    setCollapsed((current) => {
      if (current.has(spanId) === folded) return current;
      const next = new Set(current);
      if (folded) next.add(spanId);
      else next.delete(spanId);
      return next;
    });
  const toggle = (spanId: string) => setFolded(spanId, !collapsed.has(spanId));

  const start = Math.min(...trace.spans.map((s) => Date.parse(s.startTime)));
  const end = Math.max(...trace.spans.map((s) => (s.endTime ? Date.parse(s.endTime) : Date.parse(s.startTime))));
  const total = Math.max(end - start, 1);

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });

  const onKeyDown = (e: KeyboardEvent) => {
    const fromId = lastChosenId.current ?? selectedId;
    const index = rows.findIndex((r) => r.span.spanId === fromId);
    const move = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
    if (move !== 0) {
      e.preventDefault();
      const next = rows[Math.min(Math.max(index + move, 0), rows.length - 1)];
      if (next) {
        select(next.span.spanId);
        virtualizer.scrollToIndex(rows.indexOf(next));
        requestAnimationFrame(() => document.getElementById(`span-${next.span.spanId}`)?.focus());
      }
    } else if ((e.key === 'ArrowLeft' || e.key === 'ArrowRight') && fromId !== undefined) {
      setFolded(fromId, e.key === 'ArrowLeft');
    }
  };

  return (
    <>
      <PageTitle title={showBidiControls(trace.name)}>
        <TraceStatusBadge trace={trace} /> <TraceState trace={trace} lastActivity={lastActivity(trace.spans)} />
      </PageTitle>
      <dl className="facts">
        <Fact
          label="Trace id"
          value={
            <span className="mono">
              <UserText text={trace.traceId} />
            </span>
          }
        />
        <Fact label="Agent" value={<AgentLink agentId={trace.agentId} name={trace.agentName} />} />
        <Fact label="Started" value={formatTime(trace.startTime)} />
        <Fact label="Duration" value={formatDuration(trace.durationMs)} />
        <Fact label="Spans" value={`${formatNumber(trace.spanCount)} (${trace.errorCount} failed)`} />
        <Fact label="Tokens" value={`${formatNumber(trace.inputTokens)} in / ${formatNumber(trace.outputTokens)} out`} />
        <Fact label="Cost" value={formatCost(trace.cost)} />
        {trace.sessionId ? (
          <Fact
            label="Session"
            value={
              <Link to={`/sessions/${encodeURIComponent(trace.sessionId)}`}>
                <UserText text={trace.sessionId} />
              </Link>
            }
          />
        ) : null}
        {trace.userId ? <Fact label="User" value={<UserText text={trace.userId} />} /> : null}
        {trace.tags.length > 0 ? (
          <Fact label="Tags" value={<Filters noun="tagged" filters={trace.tags.map((tag) => ({ name: 'tag', value: tag }))} />} />
        ) : null}
        {Object.keys(trace.metadata).length > 0 ? (
          <Fact
            label="Metadata"
            value={
              <Filters
                noun="with metadata"
                filters={Object.entries(trace.metadata).map(([key, value]) => ({ name: 'metadata', value: `${key}=${value}`, linked: !key.includes('=') }))}
              />
            }
          />
        ) : null}
      </dl>
      <div className="trace-layout">
        <section className="waterfall" aria-labelledby="waterfall-title">
          <h2 id="waterfall-title">
            Waterfall <span className="muted small">({formatDuration(total)}; arrow keys move, left/right fold)</span>
          </h2>
          <div className="waterfall-scale" aria-hidden="true">
            {[0, 0.25, 0.5, 0.75, 1].map((f) => (
              <span key={f} style={{ left: `calc(40% + ${f * 60}% - ${f * 3}em)` }}>
                {formatDuration(total * f)}
              </span>
            ))}
          </div>
          {/* biome-ignore lint/a11y/noStaticElementInteractions: the arrow keys move through the virtualised list of span buttons inside. */}
          <div className="waterfall-rows" ref={scroller} onKeyDown={onKeyDown} data-testid="waterfall">
            <ul style={{ height: virtualizer.getTotalSize() }} aria-label="Spans">
              {virtualizer.getVirtualItems().map((item) => {
                const { span, depth, hasChildren, handedTo, parentLinkLoops } = rows[item.index]!;
                const offset = (Date.parse(span.startTime) - start) / total;
                const width = Math.max(((span.durationMs ?? 0) / total) * 100, 0.3);
                const isSelected = span.spanId === selectedId;
                return (
                  <li
                    key={span.spanId}
                    className={`span-row${isSelected ? ' selected' : ''}`}
                    style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                  >
                    <span
                      className="span-name"
                      style={{ paddingLeft: `${(depth > MAX_INDENTED_DEPTH ? MAX_INDENTED_DEPTH - DEPTH_MARKER_LEVELS : depth) * INDENT_PX}px` }}
                    >
                      {depth > MAX_INDENTED_DEPTH ? (
                        <span className="depth-marker" style={{ width: `${DEPTH_MARKER_LEVELS * INDENT_PX}px` }} title={`Nested ${depth} levels deep`}>
                          {depth}
                        </span>
                      ) : null}
                      {hasChildren ? (
                        <button
                          type="button"
                          className="fold"
                          aria-expanded={!collapsed.has(span.spanId)}
                          aria-label={`${collapsed.has(span.spanId) ? 'Expand' : 'Collapse'} ${showBidiControls(span.name)}`}
                          onClick={() => toggle(span.spanId)}
                        >
                          {collapsed.has(span.spanId) ? '▸' : '▾'}
                        </button>
                      ) : (
                        <span className="fold" />
                      )}
                      <button type="button" id={`span-${span.spanId}`} className="span-select" aria-pressed={isSelected} onClick={() => select(span.spanId)}>
                        <span className={`kind kind-${span.kind}`}>{KIND_LABEL[span.kind]}</span> <UserText text={span.name} />
                        {handedTo !== null ? (
                          <span className="span-agent">
                            {' '}
                            <UserText text={handedTo} />
                          </span>
                        ) : null}
                        {parentLinkLoops ? (
                          <span
                            className="span-loop"
                            title={`Its parent, ${showBidiControls(span.parentSpanId ?? '')}, ${span.parentSpanId === span.spanId ? 'is itself' : 'is among the spans under it'}`}
                          >
                            {' '}
                            parent loops
                          </span>
                        ) : null}
                        {span.status === 'error' ? (
                          <span className="error-dot" role="img" aria-label="failed">
                            {' '}
                            ●
                          </span>
                        ) : null}
                      </button>
                    </span>
                    <span className="span-bar-track" aria-hidden="true">
                      <span
                        className={`span-bar kind-${span.kind}${span.status === 'error' ? ' failed' : ''}`}
                        style={{ left: `${offset * 100}%`, width: `${width}%` }}
                      />
                    </span>
                    <span className="span-duration">{formatDuration(span.durationMs)}</span>
                  </li>
                );
              })}
            </ul>
          </div>
        </section>
        <aside className="side-panel" aria-label="Selected span" tabIndex={0}>
          {selected ? <SpanPanel span={selected} traceStart={start} /> : <Empty>Select a span.</Empty>}
        </aside>
      </div>
      <TraceTimeline trace={trace} />
    </>
  );
}

/**
 * A trace's tags or metadata as the explorer's filters write them (`plan=pro`), each a link to the
 * traces that match it. Metadata keys are the sender's, so they are not laid out as the trace's own
 * facts, which a key like `Agent` would pass for. A metadata key holding "=" cannot be filtered by
 * (the filter is `key=value`, split at the first "="): it is shown, not linked.
 */
function Filters({ noun, filters }: { noun: string; filters: Array<{ name: 'tag' | 'metadata'; value: string; linked?: boolean }> }) {
  return (
    <ul className="filter-links">
      {filters.map(({ name, value, linked = true }) => (
        <li key={`${name}:${value}`}>
          {linked ? (
            <Link
              className="badge badge-info"
              to={`/traces?${new URLSearchParams({ [name]: value })}`}
              aria-label={`Traces ${noun} ${showBidiControls(value)}`}
            >
              <UserText text={value} />
            </Link>
          ) : (
            <span className="badge badge-muted">
              <UserText text={value} />
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

function Fact({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function SpanPanel({ span, traceStart }: { span: Span; traceStart: number }) {
  return (
    <>
      <h2>
        <span className={`kind kind-${span.kind}`}>{KIND_LABEL[span.kind]}</span> <UserText text={span.name} />
      </h2>
      <dl className="facts compact">
        <Fact label="Status" value={<Badge tone={statusTone(span.status)}>{span.status}</Badge>} />
        {span.agentId ? <Fact label="Agent" value={<AgentLink agentId={span.agentId} name={span.agentName} />} /> : null}
        <Fact label="Duration" value={formatDuration(span.durationMs)} />
        <Fact label="Starts at" value={`+${formatDuration(Date.parse(span.startTime) - traceStart)}`} />
        {span.model ? <Fact label="Model" value={<UserText text={`${span.model}${span.provider ? ` (${span.provider})` : ''}`} />} /> : null}
        {span.operation ? <Fact label="Operation" value={<UserText text={span.operation} />} /> : null}
        {span.toolName ? <Fact label="Tool" value={<UserText text={span.toolName} />} /> : null}
        {span.inputTokens !== null || span.outputTokens !== null ? (
          <Fact
            label="Tokens"
            value={`${formatNumber(span.inputTokens)} in / ${formatNumber(span.outputTokens)} out${span.cachedInputTokens ? ` (${formatNumber(span.cachedInputTokens)} cached)` : ''}`}
          />
        ) : null}
        {span.cost !== null ? <Fact label="Cost" value={`${formatCost(span.cost)}${span.costEstimated ? ' (estimated)' : ''}`} /> : null}
        <Fact
          label="Span id"
          value={
            <span className="mono">
              <UserText text={span.spanId} />
            </span>
          }
        />
      </dl>
      {span.status === 'error' ? (
        <section className="span-error" aria-label="Error">
          <h3>Error{span.errorType ? `: ${showBidiControls(span.errorType)}` : ''}</h3>
          {span.statusMessage ? <LongMessage text={span.statusMessage} /> : null}
        </section>
      ) : null}
      {span.input !== null ? (
        <section>
          <h3>Input</h3>
          <Content text={span.input} />
        </section>
      ) : null}
      {span.output !== null ? (
        <section>
          <h3>Output</h3>
          <Content text={span.output} />
        </section>
      ) : null}
      {Object.keys(span.attributes).length > 0 ? (
        <section>
          <h3>Attributes</h3>
          <JsonView value={span.attributes as Json} open />
        </section>
      ) : null}
      {span.events.length > 0 ? (
        <section>
          <h3>Events</h3>
          <JsonView value={span.events as unknown as Json} open={false} />
        </section>
      ) : null}
    </>
  );
}

const LongMessage = ({ text }: { text: string }) => (
  <pre className="text" tabIndex={0}>
    {showBidiControls(text)}
  </pre>
);

/** What else the service knows of the trace: evaluation signals, logs, anomalies and the alerts it raised. */
function TraceTimeline({ trace }: { trace: Trace }) {
  const alerts = useQuery({
    queryKey: ['alerts', 'of-trace', trace.traceId],
    enabled: trace.agentId !== null,
    queryFn: async () =>
      unwrap(await api.GET('/spans/alerts', { params: { query: { agentId: trace.agentId!, limit: '100' } } })).data.filter((a) =>
        a.traceIds.includes(trace.traceId),
      ),
  });
  return (
    <div className="trace-extras">
      <section aria-labelledby="alerts-title">
        <h2 id="alerts-title">Alerts</h2>
        <ErrorMessage error={alerts.error} />
        {alerts.data?.length ? (
          <ul className="plain">
            {alerts.data.map((a) => (
              <li key={a.id}>
                <Badge tone={statusTone(a.severity)}>{a.severity}</Badge> <Link to={`/alerts/${encodeURIComponent(a.id)}`}>{a.type}</Link>{' '}
                <Badge tone={statusTone(a.status)}>{a.status}</Badge>{' '}
                {/* The alert's message is its latest occurrence's: this trace's only when it is the latest. */}
                <span className="muted small">
                  {a.traceIds[0] === trace.traceId ? <UserText text={a.message} /> : `one of ${a.occurrenceCount} occurrences; the latest is another trace's`}
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <Empty>{alerts.isLoading ? 'Loading…' : 'This trace raised no alert.'}</Empty>
        )}
      </section>
      <section aria-labelledby="signals-title">
        <h2 id="signals-title">Signals and evaluations</h2>
        {trace.signals.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Signal</th>
                <th scope="col">Value</th>
                <th scope="col">Reasoning</th>
              </tr>
            </thead>
            <tbody>
              {trace.signals.map((s) => (
                <tr key={s.id}>
                  <td className="text">{showBidiControls(s.signalName)}</td>
                  <td>{s.value}</td>
                  <td>
                    {typeof s.metadata['reasoning'] === 'string' ? (
                      showBidiControls(s.metadata['reasoning'])
                    ) : Object.keys(s.metadata).length ? (
                      <JsonView value={s.metadata as Json} open={false} />
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty>No signals.</Empty>
        )}
      </section>
      <section aria-labelledby="anomalies-title">
        <h2 id="anomalies-title">Anomalies</h2>
        {trace.anomalies.length ? (
          <ul className="plain">
            {trace.anomalies.map((a, i) => (
              <li key={i}>
                <Badge tone="warn">{a.type}</Badge> <UserText text={a.message} />
              </li>
            ))}
          </ul>
        ) : (
          <Empty>None against the agent's profile.</Empty>
        )}
      </section>
      <section aria-labelledby="logs-title">
        <h2 id="logs-title">Logs</h2>
        {trace.logs.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Level</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {trace.logs.map((l) => (
                <tr key={l.id}>
                  <td className="nowrap">{formatTime(l.timestamp)}</td>
                  <td>
                    <Badge tone={l.level === 'error' || l.level === 'fatal' ? 'error' : l.level === 'warn' ? 'warn' : 'muted'}>{l.level}</Badge>
                  </td>
                  <td className="text">{showBidiControls(l.message)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty>No logs.</Empty>
        )}
      </section>
    </div>
  );
}
