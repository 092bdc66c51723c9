import type { SqlDialect } from './dialects.ts';
import type { KeywordTerm, NumberTerm, SearchQuery, Term } from './query.ts';
import { SIGNALS_TABLE, SPANS_TABLE, TRACES_TABLE } from './schema.ts';
import { attributeWord, KEYWORD_SEPARATOR, keywordOf, SIGNATURE_COLUMN_NAMES, signatureSlot } from './text.ts';

/**
 * The lake's one query builder. It writes SQL from fixed text, the lake's own column names and the
 * signature column a word hashes to (one of a fixed list); every value a request carries — the tenant,
 * words, names, numbers, times — is a bound `?` parameter. The tenant and the time range come first in
 * every WHERE clause: they are the partitions (Iceberg: a bucket of the tenant and the day; DuckDB:
 * row groups in time order), so no query reads another tenant's data or days it was not asked about.
 *
 * Every condition reads one column, and a search tests the signature of one word only. That is the
 * shape both engines read least for: Athena reads the columns a query names, and DuckDB evaluates
 * single-column conditions inside its scan, where the text of a stretch of rows none of which has the
 * word's signature bits is never read. DuckDB does so for a bit test (an expression that may fail, to
 * it) only when it is the only one and every other condition is evaluated in the scan too; a second
 * bit test, or a condition over two columns, would make it read every trace's text (a million: seconds).
 */
export type SqlParam = string | number;

export interface SqlStatement {
  sql: string;
  params: SqlParam[];
}

class Builder {
  readonly params: SqlParam[] = [];
  constructor(readonly dialect: SqlDialect) {}
  /** A `?`, recording its value. */
  bind(value: SqlParam): string {
    this.params.push(value);
    return '?';
  }
  long(value: number): string {
    return `CAST(${this.bind(Math.trunc(value))} AS BIGINT)`;
  }
  double(value: number): string {
    return `CAST(${this.bind(value)} AS DOUBLE)`;
  }
}

/** A page of traces: the newest first, after `after` when paging on. */
export interface TraceSearch {
  tenantId: string;
  query: SearchQuery;
  /** [startMs, endMs) on the trace's start. */
  startMs: number;
  endMs: number;
  /** Rows past their retention are left out even before the retention job removes them. */
  nowMs: number;
  agentId?: string;
  /** The position (`position` column) of the last trace of the previous page. */
  after?: string;
  limit: number;
}

/** The columns of a search hit: a trace summary. */
export const HIT_COLUMNS = [
  'trace_id',
  'position',
  'agent_id',
  'agent_name',
  'name',
  'status',
  'start_ms',
  'end_ms',
  'duration_ms',
  'span_count',
  'error_count',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'cost',
  'model',
  'model_names',
  'session_id',
  'user_id',
  'experiment_id',
  'variant',
] as const;

const NUMBER_COLUMNS: Record<NumberTerm['field'], { column: string; integer: boolean }> = {
  cost: { column: 'cost', integer: false },
  duration: { column: 'duration_ms', integer: true },
  tokens: { column: 'total_tokens', integer: true },
};

/** A whole word or phrase ` a b ` in folded text; with a prefix the last word may go on (` a b`). */
const foldedNeedle = (words: readonly string[], prefix: boolean) => ` ${words.join(' ')}${prefix ? '' : ' '}`;
const keywordNeedle = (value: string, prefix: boolean) => `${KEYWORD_SEPARATOR}${value}${prefix ? '' : KEYWORD_SEPARATOR}`;

/** The signature test of a word: its bits in its column. */
function signatureTest(b: Builder, word: string): string {
  const { column, mask } = signatureSlot(word);
  const test = b.dialect.hasBits(SIGNATURE_COLUMN_NAMES[column]!);
  b.bind(mask);
  b.bind(mask);
  return test;
}

/**
 * The one word whose signature a search tests: among the words the query requires whole (in its text,
 * its errors or as an attribute pair), the longest, as the likeliest to be rare. None for a query
 * of prefixes, exclusions and fields only, which then reads the text of its range.
 */
export function anchorWord(query: SearchQuery): string | undefined {
  const words = query.terms.flatMap((term) => {
    if (term.negated) return [];
    if (term.kind === 'text' || term.kind === 'error') return term.prefix ? term.words.slice(0, -1) : term.words;
    if (term.kind === 'attribute' && !term.prefix) return [attributeWord(term.key, term.value)];
    return [];
  });
  return words.reduce<string | undefined>((longest, word) => (longest === undefined || word.length > longest.length ? word : longest), undefined);
}

function containsCondition(b: Builder, column: string, needle: string): string {
  const test = b.dialect.contains(column);
  b.bind(needle);
  return test;
}

function keywordCondition(b: Builder, term: KeywordTerm): string {
  switch (term.field) {
    case 'agent':
      return containsCondition(b, 'agents', keywordNeedle(keywordOf(term.value), term.prefix));
    case 'model':
    case 'tool':
      return containsCondition(b, term.field === 'model' ? 'models' : 'tools', keywordNeedle(keywordOf(term.value), term.prefix));
    case 'session':
    case 'user': {
      const column = term.field === 'session' ? 'session_id' : 'user_id';
      return term.prefix ? `starts_with(${column}, ${b.bind(term.value)})` : `${column} = ${b.bind(term.value)}`;
    }
  }
}

function numberCondition(b: Builder, term: NumberTerm): string {
  const { column, integer } = NUMBER_COLUMNS[term.field];
  // A comparison with a fraction of a millisecond or token reads as the whole numbers it allows.
  const value = integer ? (term.comparison === '>' || term.comparison === '<=' ? Math.floor(term.value) : Math.ceil(term.value)) : term.value;
  if (integer && term.comparison === '=' && !Number.isInteger(term.value)) return '1 = 0';
  return `${column} ${term.comparison} ${integer ? b.long(value) : b.double(value)}`;
}

function termCondition(b: Builder, term: Term): string {
  const condition = (() => {
    switch (term.kind) {
      case 'text':
      case 'error':
        return containsCondition(b, term.kind === 'error' ? 'errors_text' : 'search_text', foldedNeedle(term.words, term.prefix));
      case 'keyword':
        return keywordCondition(b, term);
      case 'status':
        return `status = ${b.bind(term.value)}`;
      case 'number':
        return numberCondition(b, term);
      case 'attribute':
        return containsCondition(b, 'attributes', keywordNeedle(`${keywordOf(term.key)}=${keywordOf(term.value)}`, term.prefix));
    }
  })();
  // Excluding: a trace without the value (a NULL column) is kept.
  return term.negated ? `NOT coalesce((${condition}), false)` : `(${condition})`;
}

/** The tenant, the range and retention, the agent, the anchor word's signature and the terms: what every trace query starts with. */
function traceFilter(b: Builder, search: Omit<TraceSearch, 'after' | 'limit'>): string[] {
  const anchor = anchorWord(search.query);
  return [
    `tenant_id = ${b.bind(search.tenantId)}`,
    `start_ms >= ${b.long(search.startMs)}`,
    `start_ms < ${b.long(search.endMs)}`,
    `expires_ms > ${b.long(search.nowMs)}`,
    ...(search.agentId !== undefined ? [`agent_id = ${b.bind(search.agentId)}`] : []),
    ...(anchor !== undefined ? [signatureTest(b, anchor)] : []),
    ...search.query.terms.map((term) => termCondition(b, term)),
  ];
}

/** A page of matching traces, newest first (start time, then trace id, both descending: `position`). */
export function traceSearchSql(dialect: SqlDialect, search: TraceSearch): SqlStatement {
  const b = new Builder(dialect);
  const where = traceFilter(b, search);
  if (search.after !== undefined) where.push(`position < ${b.bind(search.after)}`);
  const sql = `SELECT ${HIT_COLUMNS.join(', ')} FROM ${TRACES_TABLE.name} WHERE ${where.join(' AND ')} ORDER BY position DESC LIMIT ${Math.trunc(search.limit)}`;
  return { sql, params: b.params };
}

export const SNIPPET_SPAN_COLUMNS = [
  'trace_id',
  'span_id',
  'name',
  'kind',
  'status',
  'tool_name',
  'model',
  'input',
  'output',
  'error_type',
  'status_message',
  'attributes',
  'start_ms',
] as const;

/**
 * The spans of some traces of a tenant (a page of hits), to find the span and words that matched. The
 * traces' exact start times let the engine read only the row groups (DuckDB) or days (Iceberg) that
 * hold them, wherever in the range the hits are.
 */
export function spansOfTracesSql(dialect: SqlDialect, tenantId: string, traces: ReadonlyArray<{ traceId: string; startMs: number }>): SqlStatement {
  const b = new Builder(dialect);
  const starts = [...new Set(traces.map((t) => t.startMs))];
  const where = [
    `tenant_id = ${b.bind(tenantId)}`,
    `trace_start_ms IN (${starts.map((ms) => b.long(ms)).join(', ')})`,
    `trace_id IN (${traces.map((t) => b.bind(t.traceId)).join(', ')})`,
  ];
  return {
    sql: `SELECT ${SNIPPET_SPAN_COLUMNS.join(', ')} FROM ${SPANS_TABLE.name} WHERE ${where.join(' AND ')} ORDER BY trace_id, start_ms, span_id`,
    params: b.params,
  };
}

export const EXPORT_FORMATS = ['jsonl', 'csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportSelection extends Omit<TraceSearch, 'after' | 'limit'> {
  /** CSV has no nesting: spans and signals go as JSON text. */
  nested: boolean;
}

/** The first characters of a cell that a spreadsheet reads as a formula (OWASP, CSV injection). */
const FORMULA_LEAD_CHARACTERS = ['=', '+', '-', '@', '\t', '\r'];

/**
 * A text column as a CSV cell: a text starting like a formula (`=HYPERLINK(…)`, `@SUM(…)`) gets a
 * single quote in front, which a spreadsheet shows as text and does not run. Characters are written as
 * `chr(…)`, which both engines take, so the statement holds no quoted literal.
 */
const notAFormula = (column: string) =>
  `CASE WHEN substr(${column}, 1, 1) IN (${FORMULA_LEAD_CHARACTERS.map((c) => `chr(${c.codePointAt(0)})`).join(', ')}) THEN chr(39) || ${column} ELSE ${column} END`;

/** How long before its trace a signal may have been recorded and still be exported with it (clock skew). */
const SIGNAL_LEEWAY_MS = 3_600_000;

/**
 * One row per trace: its summary, its spans and its signals (lists of records, or JSON text for CSV),
 * newest first. The spans and signals are read for the selected traces only, within their partitions.
 */
export function exportSql(dialect: SqlDialect, selection: ExportSelection): SqlStatement {
  const b = new Builder(dialect);
  const d = dialect;
  const traces = `SELECT ${HIT_COLUMNS.join(', ')} FROM ${TRACES_TABLE.name} WHERE ${traceFilter(b, selection).join(' AND ')}`;
  // Spans and signals are listed in time order: the first two fields order them.
  const spanFields = [
    { name: 'start_time', expression: d.isoTime('start_ms'), type: 'VARCHAR' },
    { name: 'span_id', expression: 'span_id', type: 'VARCHAR' },
    { name: 'parent_span_id', expression: 'parent_span_id', type: 'VARCHAR' },
    { name: 'name', expression: 'name', type: 'VARCHAR' },
    { name: 'kind', expression: 'kind', type: 'VARCHAR' },
    { name: 'status', expression: 'status', type: 'VARCHAR' },
    { name: 'status_message', expression: 'status_message', type: 'VARCHAR' },
    { name: 'error_type', expression: 'error_type', type: 'VARCHAR' },
    { name: 'end_time', expression: `CASE WHEN end_ms IS NULL THEN NULL ELSE ${d.isoTime('end_ms')} END`, type: 'VARCHAR' },
    { name: 'duration_ms', expression: 'duration_ms', type: 'BIGINT' },
    { name: 'model', expression: 'model', type: 'VARCHAR' },
    { name: 'provider', expression: 'provider', type: 'VARCHAR' },
    { name: 'operation', expression: 'operation', type: 'VARCHAR' },
    { name: 'input_tokens', expression: 'input_tokens', type: 'BIGINT' },
    { name: 'output_tokens', expression: 'output_tokens', type: 'BIGINT' },
    { name: 'cached_input_tokens', expression: 'cached_input_tokens', type: 'BIGINT' },
    { name: 'cost', expression: 'cost', type: 'DOUBLE' },
    { name: 'cost_estimated', expression: 'cost_estimated', type: 'BOOLEAN' },
    { name: 'tool_name', expression: 'tool_name', type: 'VARCHAR' },
    { name: 'input', expression: 'input', type: 'VARCHAR' },
    { name: 'output', expression: 'output', type: 'VARCHAR' },
    { name: 'attributes', expression: 'attributes', type: 'VARCHAR' },
    { name: 'events', expression: 'events', type: 'VARCHAR' },
  ] as const;
  const signalFields = [
    { name: 'time', expression: d.isoTime('timestamp_ms'), type: 'VARCHAR' },
    { name: 'signal_id', expression: 'signal_id', type: 'VARCHAR' },
    { name: 'name', expression: 'name', type: 'VARCHAR' },
    { name: 'value', expression: 'value', type: 'DOUBLE' },
    { name: 'span_id', expression: 'span_id', type: 'VARCHAR' },
    { name: 'metadata', expression: 'metadata', type: 'VARCHAR' },
  ] as const;
  const spansWhere = [
    `tenant_id = ${b.bind(selection.tenantId)}`,
    `trace_start_ms >= ${b.long(selection.startMs)}`,
    `trace_start_ms < ${b.long(selection.endMs)}`,
    'trace_id IN (SELECT trace_id FROM t)',
  ];
  const signalsWhere = [
    `tenant_id = ${b.bind(selection.tenantId)}`,
    `timestamp_ms >= ${b.long(selection.startMs - SIGNAL_LEEWAY_MS)}`,
    'trace_id IN (SELECT trace_id FROM t)',
  ];
  const list = (expression: string) => (selection.nested ? expression : d.jsonText(expression));
  // In CSV every text column but the JSON lists (models, spans, signals: `[…]`) and the times (a digit first).
  const text = (column: string) => (selection.nested ? column : notAFormula(column));
  const sql = [
    `WITH t AS (${traces}),`,
    `s AS (SELECT trace_id, ${d.recordList(spanFields, 2)} AS spans FROM ${SPANS_TABLE.name} WHERE ${spansWhere.join(' AND ')} GROUP BY trace_id),`,
    `g AS (SELECT trace_id, ${d.recordList(signalFields, 2)} AS signals FROM ${SIGNALS_TABLE.name} WHERE ${signalsWhere.join(' AND ')} GROUP BY trace_id)`,
    `SELECT ${text('t.trace_id')} AS trace_id,`,
    `${d.isoTime('t.start_ms')} AS start_time,`,
    `CASE WHEN t.end_ms IS NULL THEN NULL ELSE ${d.isoTime('t.end_ms')} END AS end_time,`,
    `t.duration_ms AS duration_ms, ${text('t.agent_id')} AS agent_id, ${text('t.agent_name')} AS agent_name, ${text('t.name')} AS name, ${text('t.status')} AS status,`,
    't.span_count AS span_count, t.error_count AS error_count, t.input_tokens AS input_tokens, t.output_tokens AS output_tokens,',
    `t.total_tokens AS total_tokens, t.cost AS cost, ${text('t.model')} AS model, ${selection.nested ? d.stringList('t.model_names') : 't.model_names'} AS models,`,
    `${text('t.session_id')} AS session_id, ${text('t.user_id')} AS user_id, ${text('t.experiment_id')} AS experiment_id, ${text('t.variant')} AS variant,`,
    `${list('s.spans')} AS spans, ${list('g.signals')} AS signals`,
    'FROM t LEFT JOIN s ON s.trace_id = t.trace_id LEFT JOIN g ON g.trace_id = t.trace_id',
    'ORDER BY t.position DESC',
  ].join('\n');
  return { sql, params: b.params };
}

/**
 * Cuts a selection's traces, newest first, into pieces of about `spansPerPiece` spans each (a trace
 * without spans weighs one): how an export is written a bounded amount at a time, however many traces
 * an hour or a second holds. One row per piece, newest first: its oldest start (`from_ms`) and its traces.
 */
export function exportPiecesSql(dialect: SqlDialect, selection: Omit<TraceSearch, 'after' | 'limit'>, spansPerPiece: number): SqlStatement {
  const b = new Builder(dialect);
  // Bound in the order they are written: the piece's size, then the filter.
  const piece = `floor((sum(greatest(span_count, 1)) OVER (ORDER BY start_ms DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - 1) / ${b.long(spansPerPiece)})`;
  const where = traceFilter(b, selection);
  return {
    sql: `SELECT piece, min(start_ms) AS from_ms, count(*) AS traces FROM (SELECT start_ms, ${piece} AS piece FROM ${TRACES_TABLE.name} WHERE ${where.join(' AND ')}) AS ranked GROUP BY piece ORDER BY piece`,
    params: b.params,
  };
}

/** Deletes an agent's rows from every table (a deleted agent's data does not outlive it). */
export function forgetAgentSql(dialect: SqlDialect, tenantId: string, agentId: string): SqlStatement[] {
  return [TRACES_TABLE, SPANS_TABLE, SIGNALS_TABLE].map((table) => {
    const b = new Builder(dialect);
    return { sql: `DELETE FROM ${table.name} WHERE tenant_id = ${b.bind(tenantId)} AND agent_id = ${b.bind(agentId)}`, params: b.params };
  });
}

/** Deletes every row past its retention, in every table. */
export function expireSql(dialect: SqlDialect, nowMs: number): SqlStatement[] {
  return [TRACES_TABLE, SPANS_TABLE, SIGNALS_TABLE].map((table) => {
    const b = new Builder(dialect);
    return { sql: `DELETE FROM ${table.name} WHERE expires_ms <= ${b.long(nowMs)}`, params: b.params };
  });
}
