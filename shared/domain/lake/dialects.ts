/**
 * Everything in which the lake's two SQL engines differ, and nothing else: DuckDB locally, Athena
 * (Trino) on AWS. The query builder (sql.ts) writes the rest in the SQL both accept: `?` parameters,
 * `starts_with`, `coalesce`, `CASE`, `CAST(? AS BIGINT)`.
 */
export interface SqlDialect {
  readonly name: 'duckdb' | 'athena';
  /** True when the text column holds the parameter. */
  contains(column: string): string;
  /** True when every bit of the mask parameter is set in the column. */
  hasBits(column: string): string;
  /** An ISO 8601 UTC text (`2026-01-31T12:00:00.000Z`) of an epoch-milliseconds expression. */
  isoTime(epochMs: string): string;
  /** The rows of a group as a list of records (each field an expression and its SQL type), ordered by their first `orderedBy` fields. */
  recordList(fields: ReadonlyArray<{ name: string; expression: string; type: SqlType }>, orderedBy: number): string;
  /** A list (from `recordList`) as JSON text, for formats without nesting (CSV). */
  jsonText(expression: string): string;
  /** A JSON list of strings (text) as a list of strings. */
  stringList(jsonText: string): string;
}

export type SqlType = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN';

export const duckdb: SqlDialect = {
  name: 'duckdb',
  // DuckDB evaluates `contains` inside the scan after the signature test before it, reading a text only
  // where the signature lets it through; `strpos(…) > 0` it evaluated over every row (a million: seconds).
  contains: (column) => `contains(${column}, ?)`,
  hasBits: (column) => `(${column} & CAST(? AS BIGINT)) = CAST(? AS BIGINT)`,
  isoTime: (ms) => `strftime(make_timestamp(${ms} * 1000), '%Y-%m-%dT%H:%M:%S.%gZ')`,
  // Sorting the finished list (records compare field by field) costs half what an ordered aggregate does.
  recordList: (fields) => `list_sort(list(struct_pack(${fields.map((f) => `"${f.name}" := CAST(${f.expression} AS ${f.type})`).join(', ')})))`,
  jsonText: (expression) => `CAST(to_json(${expression}) AS VARCHAR)`,
  stringList: (json) => `from_json(${json}, '["VARCHAR"]')`,
};

const trinoType = (type: SqlType) => (type === 'VARCHAR' ? 'varchar' : type.toLowerCase());

export const athena: SqlDialect = {
  name: 'athena',
  contains: (column) => `strpos(${column}, ?) > 0`,
  hasBits: (column) => `bitwise_and(${column}, CAST(? AS BIGINT)) = CAST(? AS BIGINT)`,
  isoTime: (ms) => `to_iso8601(from_unixtime(CAST(${ms} AS DOUBLE) / 1000))`,
  recordList: (fields, orderedBy) =>
    `array_agg(CAST(ROW(${fields.map((f) => f.expression).join(', ')}) AS ROW(${fields.map((f) => `"${f.name}" ${trinoType(f.type)}`).join(', ')})) ORDER BY ${fields
      .slice(0, orderedBy)
      .map((f) => f.expression)
      .join(', ')})`,
  jsonText: (expression) => `json_format(CAST(${expression} AS JSON))`,
  stringList: (json) => `CAST(json_parse(${json}) AS array(varchar))`,
};
