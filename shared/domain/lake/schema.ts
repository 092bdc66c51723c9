import { SIGNATURE_COLUMN_NAMES } from './text.ts';

/**
 * The lake's tables, described once: the local DuckDB tables, the Glue/Iceberg tables of the CDK app
 * and the rows the writers build all come from here. Every column is a primitive (lists are keyword
 * text, attributes JSON text), so Firehose's JSON-to-Iceberg mapping and both SQL dialects agree.
 */
export type LakeColumnType = 'string' | 'long' | 'double' | 'boolean';

export interface LakeColumn {
  readonly name: string;
  readonly type: LakeColumnType;
  /** Always present (the keys, the times). */
  readonly required?: boolean;
  readonly doc: string;
}

export interface LakeTable {
  readonly name: string;
  readonly columns: readonly LakeColumn[];
  /** The columns that identify a row: one row per key, the latest write wins (the Iceberg table's unique keys). */
  readonly key: readonly string[];
  /** The rows a write replaces as a whole: a trace's spans are written all together, so its old ones all go. */
  readonly rowSet: readonly string[];
  /** The column whose day partitions the table (epoch milliseconds). */
  readonly time: string;
}

const column = (name: string, type: LakeColumnType, doc: string, required = false): LakeColumn => ({ name, type, doc, ...(required && { required }) });
const tenant = column('tenant_id', 'string', 'the owning tenant: the partition every query is scoped to', true);
const expires = column('expires_ms', 'long', 'when retention removes the row (epoch ms)', true);

export const TRACES_TABLE: LakeTable = {
  name: 'lake_traces',
  key: ['tenant_id', 'trace_id'],
  rowSet: ['tenant_id', 'trace_id'],
  time: 'start_ms',
  columns: [
    tenant,
    column('trace_id', 'string', 'trace id', true),
    column('start_ms', 'long', 'start of the trace (epoch ms)', true),
    column('position', 'string', 'the start, 13 digits, then the trace id: the newest-first order of results and of their pages', true),
    column('agent_id', 'string', "the trace's agent"),
    column('agent_name', 'string', "the agent's name"),
    column('agents', 'string', "the agent's name and id, as a keyword list (agent: terms)", true),
    column('name', 'string', 'name of the root span', true),
    column('status', 'string', 'ok or error', true),
    column('end_ms', 'long', 'end of the trace (epoch ms)'),
    column('duration_ms', 'long', 'duration'),
    column('span_count', 'long', 'spans', true),
    column('error_count', 'long', 'failed spans', true),
    column('input_tokens', 'long', 'input tokens', true),
    column('output_tokens', 'long', 'output tokens', true),
    column('total_tokens', 'long', 'input + output tokens', true),
    column('cost', 'double', 'estimated cost in US dollars', true),
    column('model', 'string', 'the main model'),
    column('models', 'string', 'every model, as a keyword list', true),
    column('model_names', 'string', 'every model as sent, most tokens first (JSON list)', true),
    column('tools', 'string', 'every tool called, as a keyword list', true),
    column('session_id', 'string', 'session'),
    column('user_id', 'string', 'end user'),
    column('experiment_id', 'string', 'experiment'),
    column('variant', 'string', 'experiment variant'),
    column('search_text', 'string', 'the folded words of every name, input, output, tool and error', true),
    column('text_cut', 'boolean', 'search_text holds only the first part of a very long trace', true),
    column('errors_text', 'string', 'the folded words of the error types and messages', true),
    column('attributes', 'string', 'every span attribute as a keyword list of key=value', true),
    ...SIGNATURE_COLUMN_NAMES.map((name) => column(name, 'long', 'word signature (a blocked Bloom filter column)', true)),
    column('revision', 'long', 'the summary revision the row reflects (its latest span write, or one past the revision it replaced)', true),
    expires,
  ],
};

export const SPANS_TABLE: LakeTable = {
  name: 'lake_spans',
  key: ['tenant_id', 'trace_id', 'span_id'],
  rowSet: ['tenant_id', 'trace_id'],
  time: 'trace_start_ms',
  columns: [
    tenant,
    column('trace_id', 'string', 'trace id', true),
    column('span_id', 'string', 'span id', true),
    column('trace_start_ms', 'long', "start of the span's trace (epoch ms): spans partition with their trace", true),
    column('agent_id', 'string', "the trace's agent"),
    column('parent_span_id', 'string', 'parent span'),
    column('name', 'string', 'span name', true),
    column('kind', 'string', 'agent, llm, tool, retrieval, chain, embedding or other', true),
    column('status', 'string', 'ok, error or unset', true),
    column('status_message', 'string', 'error message'),
    column('error_type', 'string', 'error type'),
    column('model', 'string', 'model'),
    column('provider', 'string', 'model provider'),
    column('operation', 'string', 'GenAI operation'),
    column('input_tokens', 'long', 'input tokens'),
    column('output_tokens', 'long', 'output tokens'),
    column('cached_input_tokens', 'long', 'cached input tokens'),
    column('cost', 'double', 'cost in US dollars'),
    column('cost_estimated', 'boolean', 'cost came from the price table', true),
    column('input', 'string', 'input (tool arguments for a tool call)'),
    column('output', 'string', 'output (tool result for a tool call)'),
    column('tool_name', 'string', 'tool'),
    column('session_id', 'string', 'session'),
    column('user_id', 'string', 'end user'),
    column('start_ms', 'long', 'span start (epoch ms)', true),
    column('end_ms', 'long', 'span end (epoch ms)'),
    column('duration_ms', 'long', 'duration'),
    column('attributes', 'string', 'attributes as JSON', true),
    column('events', 'string', 'events as JSON', true),
    expires,
  ],
};

export const SIGNALS_TABLE: LakeTable = {
  name: 'lake_signals',
  key: ['tenant_id', 'signal_id'],
  rowSet: ['tenant_id', 'signal_id'],
  time: 'timestamp_ms',
  columns: [
    tenant,
    column('signal_id', 'string', 'signal id (a hash of its content)', true),
    column('timestamp_ms', 'long', 'when (epoch ms)', true),
    column('trace_id', 'string', 'trace'),
    column('span_id', 'string', 'span'),
    column('agent_id', 'string', 'agent'),
    column('name', 'string', 'signal name', true),
    column('value', 'double', 'value', true),
    column('metadata', 'string', 'metadata as JSON', true),
    expires,
  ],
};

export const LAKE_TABLES: readonly LakeTable[] = [TRACES_TABLE, SPANS_TABLE, SIGNALS_TABLE];

/** A row of a lake table: column name → value (null for an absent optional value). */
export type LakeRow = Record<string, string | number | boolean | null>;
