import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { searchQuery } from '#shared/schemas/routes/search.ts';
import { ApiError, api, type Schemas, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { AgentLink } from '../components/AgentLink';
import { CursorPager, pageSize } from '../components/CursorPager';
import { type ExportFormat, FormatSelect, retentionRange, useProfile, useStartExport } from '../components/exports';
import { AgentFilter } from '../components/filters';
import { queryProblems } from '../components/query-problems';
import { listQueryFromSearch, pinnedRange, TimeRangePicker, withChanges } from '../components/TimeRangePicker';
import { TraceState, TraceStatusBadge } from '../components/TraceState';
import { UserText } from '../components/UserText';
import { Empty, ErrorMessage, formatCost, formatDuration, formatNumber, formatTime, Loading, PageTitle } from '../components/ui';

type SearchQuery = NonNullable<paths['/search/traces']['get']['parameters']['query']>;
type Hit = Schemas['SearchHit'];

/** The search language in brief (docs/search.md): each term, and what it matches. */
const SYNTAX: ReadonlyArray<[string, string]> = [
  ['refund', 'the word anywhere in the trace: span names, inputs, outputs, tools, errors'],
  ['refund*', 'a word that starts with refund'],
  ['"payment declined"', 'these words, in this order, within one field'],
  ['agent:support-bot', 'the agent, by name or id (agent:"Billing Agent" for spaces)'],
  ['model:gpt-4o*, tool:payments.refund', 'a model or tool the trace used; whole value, or a prefix with *'],
  ['session:sess-42, user:u-7', 'the session or user id (a prefix with *)'],
  ['status:error, status:ok', "the trace's status"],
  ['error:timeout, error:"rate limit"', "words in the trace's error types and messages only"],
  ['cost>0.5', 'cost in US dollars; also >=, <, <=, : (equal)'],
  ['duration>2s', 'duration: milliseconds, or with s, m, h'],
  ['tokens>10k', 'total tokens, with k or m'],
  ['attr.customer.tier:gold', 'a span attribute (nested keys joined with dots), whole value or prefix *'],
  ['-status:ok, -refund', 'a leading - excludes what the term matches'],
];

/** A refusal for the plan (403): the API's message, and how to have a plan with search on this machine. */
function PlanRefusal({ error }: { error: unknown }) {
  if (!(error instanceof ApiError && error.status === 403)) return <ErrorMessage error={error} />;
  return (
    <div className="notice" role="status" data-testid="plan-refusal">
      <p>
        <strong>{error.message}</strong>
      </p>
      <p>
        Search needs the Starter plan or above, Ask the Pro plan. Running the service on your own machine, <code>SIGN_UP_PLAN=pro npm start</code> starts new
        accounts on Pro.
      </p>
    </div>
  );
}

/** Search over every finished trace the plan keeps (`GET /search/traces`), a question in plain words (`POST /search/ask`), and an export of the results. */
export default function Search() {
  const [search, setSearch] = useSearchParams();
  const query = listQueryFromSearch(search, ['q', 'agentId', 'cursor'], pageSize(search)) as SearchQuery;
  const problems = queryProblems(searchQuery, query);
  const asked = Boolean(query.q?.trim());
  const filters = useQuery({ queryKey: ['filters'], queryFn: async () => unwrap(await api.GET('/spans/filters')).data, staleTime: 60_000 });
  const results = useQuery({
    queryKey: ['search', query],
    queryFn: async () => unwrap(await api.GET('/search/traces', { params: { query } })),
    placeholderData: keepPreviousData,
    enabled: asked && problems.size === 0,
  });
  const change = (changes: Record<string, string | undefined>) => setSearch(withChanges(search, changes));
  const unplaced = [...problems].filter(([field]) => field !== 'agentId').map(([, problem]) => problem);

  return (
    <>
      <PageTitle title="Search" />
      <QueryBox value={search.get('q') ?? ''} onSubmit={(q) => change({ q })} />
      <form className="filters" aria-label="Search filters" onSubmit={(e) => e.preventDefault()}>
        <AgentFilter
          agents={filters.data?.agents}
          value={search.get('agentId') ?? ''}
          problem={problems.get('agentId')}
          onChange={(v) => change({ agentId: v })}
        />
        <TimeRangePicker search={search} onChange={change} />
      </form>
      {unplaced.length > 0 ? (
        <p className="error" role="alert">
          {unplaced.join('; ')}
        </p>
      ) : null}
      {filters.error ? <ErrorMessage error={filters.error} /> : null}
      {results.error ? <PlanRefusal error={results.error} /> : null}
      {!asked ? <Empty>Type a query above to search every finished trace the plan keeps.</Empty> : results.isLoading ? <Loading label="Searching" /> : null}
      {asked && results.data && problems.size === 0 && !results.error ? (
        <section aria-labelledby="results-title">
          <h2 id="results-title">Results</h2>
          {results.data.data.length === 0 ? (
            <Empty>No trace matches this search.</Empty>
          ) : (
            <HitsTable hits={results.data.data} busy={results.isPlaceholderData} />
          )}
          <CursorPager pagination={results.data.pagination} noun="traces" pin={pinnedRange(search, query)} sizes />
          <ExportResults query={query} />
        </section>
      ) : null}
      <Ask />
    </>
  );
}

/** The query, applied when submitted; its URL value re-mounts it, so going back shows what the URL holds. */
function QueryBox({ value, onSubmit }: { value: string; onSubmit: (q: string) => void }) {
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    onSubmit(String(new FormData(e.currentTarget).get('q') ?? '').trim());
  };
  return (
    <form className="form search-form" aria-label="Search traces" onSubmit={submit}>
      <div className="row">
        <label className="grow">
          Query
          <input key={value} name="q" type="search" defaultValue={value} aria-describedby="search-syntax-summary" maxLength={1000} />
        </label>
        <button type="submit">Search</button>
      </div>
      <details className="syntax">
        <summary id="search-syntax-summary">
          Search syntax: words, "phrases", field terms (agent:, tool:, status:, cost&gt; …) and -negation; all terms must match
        </summary>
        <table className="compact">
          <caption className="visually-hidden">Search terms</caption>
          <thead>
            <tr>
              <th scope="col">Term</th>
              <th scope="col">Matches</th>
            </tr>
          </thead>
          <tbody>
            {SYNTAX.map(([term, meaning]) => (
              <tr key={term}>
                <td className="text">
                  <code>{term}</code>
                </td>
                <td className="text">{meaning}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </form>
  );
}

/** The words a hit matched, marked in its snippet. */
function Snippet({ match }: { match: NonNullable<Hit['match']> }) {
  const { snippet, highlight } = match;
  const start = Math.max(0, Math.min(highlight.start, snippet.length));
  const end = Math.max(start, Math.min(highlight.end, snippet.length));
  return (
    <>
      <div className="muted small">
        {match.spanName} · {match.field}
      </div>
      <span>
        {snippet.slice(0, start)}
        {end > start ? <mark>{snippet.slice(start, end)}</mark> : null}
        {snippet.slice(end)}
      </span>
    </>
  );
}

function HitsTable({ hits, busy }: { hits: readonly Hit[]; busy: boolean }) {
  return (
    <table className="search-hits" aria-busy={busy}>
      <thead>
        <tr>
          <th scope="col">Trace</th>
          <th scope="col">Agent</th>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Started</th>
          <th scope="col">Duration</th>
          <th scope="col">Tokens</th>
          <th scope="col">Cost</th>
          <th scope="col">Match</th>
        </tr>
      </thead>
      <tbody>
        {hits.map(({ trace: t, match }) => (
          <tr key={t.traceId}>
            <td>
              <Link to={`/traces/${encodeURIComponent(t.traceId)}`} className="mono">
                <UserText text={t.traceId} />
              </Link>
            </td>
            <td>
              <AgentLink agentId={t.agentId} name={t.agentName} />
            </td>
            <td className="text">
              <UserText text={t.name} />
            </td>
            <td>
              <TraceStatusBadge trace={t} />
              <TraceState trace={t} />
            </td>
            <td className="nowrap">{formatTime(t.startTime)}</td>
            <td>{formatDuration(t.durationMs)}</td>
            <td>{formatNumber(t.totalTokens)}</td>
            <td>{formatCost(t.cost)}</td>
            <td className="text">{match ? <Snippet match={match} /> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "Export these results": the same query, range and agent, in a format chosen, then the exports page. */
function ExportResults({ query }: { query: SearchQuery }) {
  const [format, setFormat] = useState<ExportFormat>('jsonl');
  const start = useStartExport();
  const needsRetention = !query.startDate || !query.endDate;
  const profile = useProfile();
  const retention = profile.data?.subscription.features.retention;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // A search without a range covers the plan's retention; an export names its range.
    const whole = retention === undefined ? undefined : retentionRange(retention);
    const startDate = query.startDate ?? whole?.startDate;
    const endDate = query.endDate ?? new Date().toISOString();
    if (!startDate) return;
    start.mutate({ format, startDate, endDate, ...(query.agentId ? { agentId: query.agentId } : {}), ...(query.q ? { q: query.q } : {}) });
  };
  return (
    <form className="form inline-form export-results" aria-label="Export these results" onSubmit={submit}>
      <FormatSelect value={format} onChange={setFormat} />
      <button type="submit" disabled={start.isPending || (needsRetention && retention === undefined)}>
        Export these results
      </button>
      <ErrorMessage error={start.error ?? (needsRetention ? profile.error : null)} />
    </form>
  );
}

/** A question in plain words, turned into a search by the API: the query it ran, the words it did not use, and the first results. */
function Ask() {
  const [question, setQuestion] = useState('');
  const ask = useMutation({
    mutationFn: async (text: string) => unwrap(await api.POST('/search/ask', { body: { question: text } })).data,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (question.trim()) ask.mutate(question.trim());
  };
  const answer = ask.data;
  const asSearch = answer
    ? `/search?${new URLSearchParams({
        q: answer.query.q,
        ...(answer.query.startDate ? { from: answer.query.startDate } : {}),
        ...(answer.query.endDate ? { to: answer.query.endDate } : {}),
      })}`
    : '';
  return (
    <section aria-labelledby="ask-title" className="ask">
      <h2 id="ask-title">Ask</h2>
      <form className="form" aria-label="Ask a question" onSubmit={submit}>
        <div className="row">
          <label className="grow">
            Question in plain words
            <input
              value={question}
              onChange={(e) => setQuestion(e.target.value)}
              maxLength={500}
              placeholder="failed support-bot runs yesterday that cost more than a dollar"
            />
          </label>
          <button type="submit" disabled={ask.isPending}>
            Ask
          </button>
        </div>
      </form>
      {ask.isPending ? <Loading label="Asking" /> : null}
      {ask.error ? <PlanRefusal error={ask.error} /> : null}
      {answer && !ask.isPending ? (
        <div className="ask-answer" data-testid="ask-answer">
          <dl className="facts">
            <div>
              <dt>Ran the query</dt>
              <dd>
                <code data-testid="ask-query">{answer.query.q}</code>
              </dd>
            </div>
            <div>
              <dt>Range</dt>
              <dd>
                {answer.query.startDate || answer.query.endDate
                  ? `${answer.query.startDate ? formatTime(answer.query.startDate) : "the plan's retention"} – ${answer.query.endDate ? formatTime(answer.query.endDate) : 'now'}`
                  : "the plan's retention"}
              </dd>
            </div>
            <div>
              <dt>Understood by</dt>
              <dd>{answer.translatedBy === 'bedrock' ? 'a model (Bedrock)' : 'the built-in parser'}</dd>
            </div>
            {answer.ignored.length > 0 ? (
              <div>
                <dt>Words not used</dt>
                <dd className="text">{answer.ignored.join(', ')}</dd>
              </div>
            ) : null}
          </dl>
          <p>
            <Link to={asSearch}>Open as a search</Link>
            {answer.pagination.hasMore ? ' to page through every result and export them.' : ' to export the results.'}
          </p>
          {answer.results.length === 0 ? <Empty>No trace matches this question.</Empty> : <HitsTable hits={answer.results} busy={false} />}
        </div>
      ) : null}
    </section>
  );
}
