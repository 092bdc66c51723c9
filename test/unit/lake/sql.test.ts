import { describe, expect, it } from 'vitest';
import { athena, duckdb } from '#shared/domain/lake/dialects.ts';
import { parseSearchQuery } from '#shared/domain/lake/query.ts';
import { anchorWord, exportPiecesSql, exportSql, forgetAgentSql, spansOfTracesSql, type TraceSearch, traceSearchSql } from '#shared/domain/lake/sql.ts';
import { SIGNATURE_COLUMN_NAMES, signatureSlot } from '#shared/domain/lake/text.ts';

const search = (q: string, extra: Partial<TraceSearch> = {}): TraceSearch => ({
  tenantId: 'tnt_a',
  query: parseSearchQuery(q),
  startMs: 1000,
  endMs: 2000,
  nowMs: 1500,
  limit: 51,
  ...extra,
});

/** Every run of letters in the SQL text: what it is made of besides punctuation. */
const identifiersOf = (sql: string) => new Set(sql.match(/[A-Za-z_][A-Za-z_0-9]*/g));

const CRAFTED = [
  `"'; DROP TABLE lake_traces; --" drop*`,
  `agent:"x' OR 1=1 --" tool:"') UNION SELECT * FROM lake_spans --"`,
  `attr.k:"' OR tenant_id <> 'tnt_a" "tenant_id = 'other'"`,
  `session:"tnt_b' OR '1'='1" user:"\\\\' ; --" model:gpt*`,
  `"/* comment */" -"? or" error:"%_\\\\ x"`,
];

describe('the lake query builder', () => {
  it.each([duckdb, athena].map((d) => [d.name, d] as const))('scopes every trace query by tenant and time first, with bound values (%s)', (_name, dialect) => {
    const { sql, params } = traceSearchSql(dialect, search('refund agent:bot cost>1', { agentId: 'agt_1', after: '0000000001900#t9' }));
    expect(sql).toMatch(
      /^SELECT .* FROM lake_traces WHERE tenant_id = \? AND start_ms >= CAST\(\? AS BIGINT\) AND start_ms < CAST\(\? AS BIGINT\) AND expires_ms > CAST\(\? AS BIGINT\) AND agent_id = \? AND /,
    );
    expect(sql).toMatch(/AND position < \? ORDER BY position DESC LIMIT 51$/);
    expect(params.slice(0, 5)).toEqual(['tnt_a', 1000, 2000, 1500, 'agt_1']);
    expect(params.at(-1)).toBe('0000000001900#t9');
    expect(sql.split('?').length - 1).toBe(params.length);
  });

  it.each(CRAFTED)('never writes request text into SQL: %s', (q) => {
    for (const dialect of [duckdb, athena]) {
      const { sql, params } = traceSearchSql(dialect, search(q));
      const allowed = identifiersOf(traceSearchSql(dialect, search('')).sql);
      for (const word of [
        'AND',
        'NOT',
        'coalesce',
        'false',
        'strpos',
        'contains',
        'search_text',
        'errors_text',
        'attributes',
        'agents',
        'agent_id',
        'session_id',
        'user_id',
        'starts_with',
        'models',
        'tools',
        'status',
        'CAST',
        'AS',
        'BIGINT',
        'DOUBLE',
        'bitwise_and',
        ...SIGNATURE_COLUMN_NAMES,
      ])
        allowed.add(word);
      expect(
        [...identifiersOf(sql)].filter((w) => !allowed.has(w)),
        q,
      ).toEqual([]);
      expect(sql).not.toMatch(/'/);
      expect(sql.split('?').length - 1).toBe(params.length);
    }
  });

  it('narrows by the signature of one word, the longest required whole, and compares folded text', () => {
    const { sql, params } = traceSearchSql(duckdb, search('"Payment declined" refundable* -declines'));
    const declined = signatureSlot('declined');
    expect(sql.match(/&/g)).toHaveLength(1);
    expect(sql).toContain(`AND (${SIGNATURE_COLUMN_NAMES[declined.column]} & CAST(? AS BIGINT)) = CAST(? AS BIGINT) AND`);
    expect(params).toEqual(expect.arrayContaining([declined.mask, ' payment declined ', ' refundable']));
    // Neither a prefix nor an exclusion can be narrowed by signature.
    expect(anchorWord(parseSearchQuery('refundable* -declines agent:x'))).toBeUndefined();
    expect(anchorWord(parseSearchQuery('attr.tier:gold ok'))).toBe('\u0001tier=gold');
  });

  it('reads one column per condition: no condition joins two columns with OR', () => {
    const { sql } = traceSearchSql(duckdb, search('refund agent:bot -agent:x tool:y* model:m -"a b" attr.k:v cost>1 -status:ok session:s*', { after: 'p' }));
    expect(sql).not.toMatch(/ OR /);
  });

  it('writes the bit test in each dialect', () => {
    expect(traceSearchSql(athena, search('refund')).sql).toMatch(/bitwise_and\(sig_\d\d, CAST\(\? AS BIGINT\)\) = CAST\(\? AS BIGINT\)/);
  });

  it('keeps traces without the value when excluding, and uses no signature for an exclusion', () => {
    const { sql, params } = traceSearchSql(duckdb, search('-agent:bot -refund'));
    expect(sql).toContain('NOT coalesce((contains(agents, ?)), false)');
    expect(sql).toContain('NOT coalesce((contains(search_text, ?)), false)');
    expect(params).not.toContain(signatureSlot('refund').mask);
  });

  it('compares durations and tokens as whole numbers', () => {
    const { sql, params } = traceSearchSql(duckdb, search('duration>1.5 tokens<=2.5 duration:3.5'));
    expect(sql).toContain('duration_ms > CAST(? AS BIGINT)');
    expect(params).toEqual(expect.arrayContaining([1, 2]));
    expect(sql).toContain('1 = 0');
  });

  it('reads the spans of a page of traces within their partitions', () => {
    const { sql, params } = spansOfTracesSql(duckdb, 'tnt_a', [
      { traceId: 'a', startMs: 5 },
      { traceId: 'b', startMs: 9 },
    ]);
    expect(sql).toMatch(/WHERE tenant_id = \? AND trace_start_ms IN \(CAST\(\? AS BIGINT\), CAST\(\? AS BIGINT\)\) AND trace_id IN \(\?, \?\)/);
    expect(params).toEqual(['tnt_a', 5, 9, 'a', 'b']);
  });

  it('scopes an export and its spans and signals by the tenant', () => {
    for (const dialect of [duckdb, athena]) {
      const { sql, params } = exportSql(dialect, { ...search(CRAFTED[1]!), nested: dialect === athena });
      expect(sql.match(/tenant_id = \?/g)).toHaveLength(3);
      expect(params.filter((p) => p === 'tnt_a')).toHaveLength(3);
      expect(sql).not.toMatch(/UNION|--/);
    }
  });

  it('cuts an export into pieces within the tenant and the range, with bound values only', () => {
    const { sql, params } = exportPiecesSql(duckdb, search(CRAFTED[1]!), 10_000);
    expect(sql).toMatch(/FROM lake_traces WHERE tenant_id = \? AND start_ms >= CAST\(\? AS BIGINT\) AND start_ms < CAST\(\? AS BIGINT\) AND /);
    expect(params.slice(0, 3)).toEqual([10_000, 'tnt_a', 1000]);
    expect(sql).not.toMatch(/'|UNION|--/);
    expect(sql.split('?').length - 1).toBe(params.length);
  });

  it('deletes an agent from every table', () => {
    expect(forgetAgentSql(duckdb, 't', 'a')).toEqual(
      ['lake_traces', 'lake_spans', 'lake_signals'].map((table) => ({ sql: `DELETE FROM ${table} WHERE tenant_id = ? AND agent_id = ?`, params: ['t', 'a'] })),
    );
  });
});
