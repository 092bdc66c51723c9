import { isRangeKey, RANGES, type RangeKey, rangeDates } from './range';

/**
 * The time range a list page holds in its URL: a preset (`range=24h`) or explicit `from`/`to`. A
 * preset ends now, or at `at` once a page has been turned (see `pinnedRange`).
 */
export function rangeFromSearch(search: URLSearchParams): { startDate?: string; endDate?: string } {
  const range = search.get('range');
  const at = Date.parse(search.get('at') ?? '');
  if (isRangeKey(range)) return rangeDates(range, Number.isNaN(at) ? Date.now() : at);
  const from = search.get('from');
  const to = search.get('to');
  return { ...(from ? { startDate: new Date(from).toISOString() } : {}), ...(to ? { endDate: new Date(to).toISOString() } : {}) };
}

const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** Presets and a custom from–to; every change goes to the URL, so a link reproduces the view. */
export function TimeRangePicker({ search, onChange }: { search: URLSearchParams; onChange: (changes: Record<string, string | undefined>) => void }) {
  const range = search.get('range') ?? (search.get('from') || search.get('to') ? 'custom' : 'all');
  return (
    <fieldset className="time-range">
      <legend>Time range</legend>
      <label>
        <span className="visually-hidden">Preset</span>
        <select
          aria-label="Time range preset"
          value={range}
          onChange={(e) =>
            onChange({ range: e.target.value === 'all' || e.target.value === 'custom' ? undefined : e.target.value, from: undefined, to: undefined })
          }
        >
          <option value="all">All time</option>
          {Object.entries(RANGES).map(([key, r]) => (
            <option key={key} value={key}>
              {r.label}
            </option>
          ))}
          <option value="custom">Custom</option>
        </select>
      </label>
      <label>
        From
        <input
          type="datetime-local"
          value={toLocalInput(search.get('from'))}
          onChange={(e) => onChange({ range: undefined, from: e.target.value ? new Date(e.target.value).toISOString() : undefined })}
        />
      </label>
      <label>
        To
        <input
          type="datetime-local"
          value={toLocalInput(search.get('to'))}
          onChange={(e) => onChange({ range: undefined, to: e.target.value ? new Date(e.target.value).toISOString() : undefined })}
        />
      </label>
    </fieldset>
  );
}

/**
 * What keeps a preset range where it was while its pages are turned: its end, as `at`. A cursor
 * continues only the query that returned it, dates included, and "the last hour" moves on every minute.
 */
export function pinnedRange(search: URLSearchParams, query: { endDate?: string }): Record<string, string> {
  return isRangeKey(search.get('range')) && query.endDate ? { at: query.endDate } : {};
}

/** The parameters of the page a list shows; a change of anything else goes back to the first page. */
const PAGE_PARAMETERS = ['cursor', 'at'];

/** A URL search with some parameters changed (undefined removes one) and, unless `keepPage`, paging reset. */
/**
 * The query of a list the URL describes: its page size, its time range and the named parameters it
 * holds (filters and the cursor), so that a link reproduces the view.
 */
export function listQueryFromSearch(search: URLSearchParams, names: readonly string[], limit: string): Record<string, string> {
  const query: Record<string, string> = { limit, ...rangeFromSearch(search) };
  for (const name of names) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  return query;
}

export function withChanges(search: URLSearchParams, changes: Record<string, string | undefined>, keepPage = false): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === '') next.delete(name);
    else next.set(name, value);
  }
  if (!keepPage) for (const name of PAGE_PARAMETERS) if (!(name in changes)) next.delete(name);
  return next;
}

/** One of the preset ranges, for a page that always shows one (its charts need a range). */
export function RangeSelect({ value, onChange }: { value: RangeKey; onChange: (range: string) => void }) {
  return (
    <label>
      Range{' '}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {Object.entries(RANGES).map(([key, r]) => (
          <option key={key} value={key}>
            {r.label}
          </option>
        ))}
      </select>
    </label>
  );
}
