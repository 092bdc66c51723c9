import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { api, type Schemas, unwrap } from '../api/client';
import { CursorPager } from '../components/CursorPager';
import { downloadExport, type ExportFormat, FormatSelect, isOwnDownloadRoute, openPresignedDownload, useStartExport } from '../components/exports';
import { ChoiceFilter } from '../components/filters';
import { Badge, Empty, ErrorMessage, formatBytes, formatNumber, formatTime, Loading, PageTitle, statusTone } from '../components/ui';

type Export = Schemas['Export'];

/** How often the list is read again while an export waits or runs. */
const POLL_MS = 2000;
const isUnderWay = (e: Export) => e.status === 'queued' || e.status === 'running';

/** The tenant's exports of the last 7 days, newest first, read again every 2 s while one is under way; a new one; each file's download. */
export default function Exports() {
  const [search] = useSearchParams();
  const cursor = search.get('cursor');
  const { state } = useLocation();
  const created = (state as { created?: unknown } | null)?.created;
  const exportsList = useQuery({
    queryKey: ['exports', cursor],
    queryFn: async () => unwrap(await api.GET('/exports', { params: { query: { limit: '25', ...(cursor ? { cursor } : {}) } } })),
    placeholderData: keepPreviousData,
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.data.some(isUnderWay) ? POLL_MS : false),
  });
  const underWay = exportsList.data?.data.some(isUnderWay) ?? false;

  return (
    <>
      <PageTitle title="Exports" />
      <p className="muted">
        A file of traces with their spans and signals (JSON lines, CSV or Parquet), one row per trace; kept 7 days. To export what a search finds, use "Export
        these results" on the <Link to="/search">search page</Link>.
      </p>
      {typeof created === 'string' ? (
        <p className="notice" role="status">
          Export <span className="mono">{created}</span> is queued; it is listed below until its file is written.
        </p>
      ) : null}
      <NewExport />
      <section aria-labelledby="exports-title">
        <h2 id="exports-title">Your exports</h2>
        <ErrorMessage error={exportsList.error} />
        {exportsList.isLoading ? <Loading /> : null}
        {underWay ? (
          <p className="muted small" role="status">
            Checking every 2 seconds while an export is queued or running.
          </p>
        ) : null}
        {exportsList.data ? (
          <>
            {exportsList.data.data.length === 0 ? (
              <Empty>No export in the last 7 days.</Empty>
            ) : (
              <table className="exports" aria-busy={exportsList.isPlaceholderData}>
                <thead>
                  <tr>
                    <th scope="col">Export</th>
                    <th scope="col">Format</th>
                    <th scope="col">Created</th>
                    <th scope="col">Traces of</th>
                    <th scope="col">Status</th>
                    <th scope="col">Rows</th>
                    <th scope="col">Size</th>
                    <th scope="col">Link valid until</th>
                    <th scope="col">File</th>
                  </tr>
                </thead>
                <tbody>
                  {exportsList.data.data.map((e) => (
                    <ExportRow key={e.id} item={e} />
                  ))}
                </tbody>
              </table>
            )}
            <CursorPager pagination={exportsList.data.pagination} noun="exports" />
          </>
        ) : null}
      </section>
    </>
  );
}

function ExportRow({ item: e }: { item: Export }) {
  return (
    <tr>
      <td className="text mono">{e.id}</td>
      <td>{e.format}</td>
      <td className="nowrap">{formatTime(e.createdAt)}</td>
      <td className="text small">
        <div>
          {formatTime(e.startDate)} – {formatTime(e.endDate)}
        </div>
        {e.agentId ? (
          <div>
            agent <Link to={`/agents/${encodeURIComponent(e.agentId)}`}>{e.agentId}</Link>
          </div>
        ) : null}
        {e.q ? (
          <div>
            matching <Link to={`/search?${new URLSearchParams({ q: e.q, from: e.startDate, to: e.endDate })}`}>{e.q}</Link>
          </div>
        ) : null}
      </td>
      <td className="text">
        <Badge tone={statusTone(e.status)}>{e.status}</Badge>
        {e.error ? <div className="field-error">{e.error}</div> : null}
      </td>
      <td>{formatNumber(e.rows)}</td>
      <td className="nowrap">{formatBytes(e.bytes)}</td>
      <td className="nowrap">{formatTime(e.expiresAt)}</td>
      <td>{e.status === 'succeeded' ? <DownloadButton item={e} /> : '—'}</td>
    </tr>
  );
}

/**
 * The file: locally the API's download route, which needs the sign-in's bearer token, so it is fetched
 * with the console's client and saved under the API's file name; on AWS a presigned link, read afresh
 * when asked for (a link read over an hour before has expired).
 */
function DownloadButton({ item }: { item: Export }) {
  const presigned = Boolean(item.downloadUrl) && !isOwnDownloadRoute(item);
  const download = useMutation({ mutationFn: () => (presigned ? openPresignedDownload(item) : downloadExport(item)) });
  return (
    <>
      <button type="button" className="link" aria-label={`Download ${item.id}`} disabled={download.isPending} onClick={() => download.mutate()}>
        {download.isPending ? 'Downloading…' : 'Download'}
      </button>
      <ErrorMessage error={download.error} />
    </>
  );
}

const toLocalInput = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** A new export: format, range (the last 24 hours to start with), optionally one agent and a search query. */
function NewExport() {
  const [format, setFormat] = useState<ExportFormat>('jsonl');
  const [from, setFrom] = useState(() => toLocalInput(Date.now() - 86_400_000));
  const [to, setTo] = useState(() => toLocalInput(Date.now() + 60_000));
  const [agentId, setAgentId] = useState('');
  const [q, setQ] = useState('');
  const filters = useQuery({ queryKey: ['filters'], queryFn: async () => unwrap(await api.GET('/spans/filters')).data, staleTime: 60_000 });
  const start = useStartExport();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate({
      format,
      startDate: new Date(from).toISOString(),
      endDate: new Date(to).toISOString(),
      ...(agentId ? { agentId } : {}),
      ...(q.trim() ? { q: q.trim() } : {}),
    });
  };
  return (
    <section aria-labelledby="new-export-title">
      <h2 id="new-export-title">New export</h2>
      <form className="filters" aria-label="New export" onSubmit={submit}>
        <FormatSelect className="filter" value={format} onChange={setFormat} />
        <label className="filter">
          From
          <input type="datetime-local" required value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label className="filter">
          To
          <input type="datetime-local" required value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
        <ChoiceFilter
          name="export-agent"
          label="Agent"
          any="All agents"
          value={agentId}
          choices={filters.data?.agents.map((a) => ({ value: a.id, label: a.name })) ?? []}
          onChange={setAgentId}
        />
        <label className="filter">
          Search query (optional)
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} maxLength={1000} />
        </label>
        <button type="submit" disabled={start.isPending || !from || !to}>
          Start export
        </button>
      </form>
      <ErrorMessage error={start.error ?? filters.error} />
    </section>
  );
}
