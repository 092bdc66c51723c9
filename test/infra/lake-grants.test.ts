import { describe, expect, it } from 'vitest';
import { QUERY_RESULTS_PREFIX } from '#shared/adapters/exports-athena.ts';
import { type Capability, catalog, type LakeCapability } from '#shared/catalog.ts';
import type { ServiceFunction } from '../../infra/aws/service-function.ts';
import { actionsOf, buildTestApp, environmentOf, functionsOf, type Statement, statementsOf, templateOf } from './service-app.ts';

const app = buildTestApp();
app.app.synth();

/** Every function with the catalog row it was built from, and the capabilities that row names. */
const rows: Array<{ name: string; fn: ServiceFunction; uses: readonly Capability[] }> = [
  ...catalog.routes.map((r) => ({ name: r.id, fn: app.routeFunctions.get(r.id)!, uses: r.uses ?? [] })),
  ...catalog.queues.map((q) => ({ name: `${q.consumer}-worker`, fn: app.workers.consumerFunctions.get(q.id)!, uses: q.uses ?? [] })),
  ...catalog.schedules.map((s) => ({ name: `${s.id}-job`, fn: app.workers.jobFunctions.get(s.id)!, uses: s.uses ?? [] })),
];
const LAKE_CAPABILITIES: readonly LakeCapability[] = ['lakeWrite', 'lakeRead', 'lakeDelete', 'lakeExport', 'exportLinks'];
const using = (capability: Capability) =>
  rows
    .filter((r) => r.uses.includes(capability))
    .map((r) => r.name)
    .sort();

/** The resources of the function's Allow statements that grant `action`, as JSON text. */
const resourcesGranting = (fn: ServiceFunction, action: string): string[] =>
  statementsOf(fn)
    .filter((s: Statement) => s.Effect === 'Allow' && actionsOf(s).includes(action))
    .flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]))
    .map((r) => JSON.stringify(r));
const grants = (fn: ServiceFunction, action: string) => resourcesGranting(fn, action).length > 0;
const withAction = (action: string) =>
  rows
    .filter((r) => grants(r.fn, action))
    .map((r) => r.name)
    .sort();

describe('lake grants come from the catalog', () => {
  it('builds every catalog row into a function', () => {
    expect(rows.every((r) => r.fn !== undefined)).toBe(true);
  });

  it('names the lake capabilities where the lake is used: the ingest worker writes, the searches read, the lake worker and the retention job read and delete, exports are written by the lake worker and linked by their routes', () => {
    expect(using('lakeWrite')).toEqual(['ingest-worker']);
    expect(using('lakeRead')).toEqual(['lake-retention-job', 'lake-worker', 'search/ask', 'search/traces']);
    expect(using('lakeDelete')).toEqual(['lake-retention-job', 'lake-worker']);
    expect(using('lakeExport')).toEqual(['lake-worker']);
    expect(using('exportLinks')).toEqual(['exports/download', 'exports/get', 'exports/list']);
    expect(using('askModel')).toEqual(['search/ask']);
  });

  it('gives the lake environment to exactly the functions with a lake capability', () => {
    const withLake = rows
      .filter((r) => 'LAKE' in environmentOf(r.fn))
      .map((r) => r.name)
      .sort();
    expect(withLake).toEqual(
      rows
        .filter((r) => r.uses.some((u) => (LAKE_CAPABILITIES as readonly string[]).includes(u)))
        .map((r) => r.name)
        .sort(),
    );
    for (const { fn, uses } of rows) {
      const env = environmentOf(fn);
      if (!('LAKE' in env)) continue;
      expect(env['LAKE']).toBe('athena');
      expect('LAKE_FIREHOSE_STREAM' in env).toBe(uses.includes('lakeWrite'));
      expect('LAKE_WORKGROUP' in env).toBe(uses.some((u) => u !== 'lakeWrite' && (LAKE_CAPABILITIES as readonly string[]).includes(u)));
    }
  });

  it('lets only the writer put records into the Firehose stream, on that stream only', () => {
    expect(withAction('firehose:PutRecordBatch')).toEqual(using('lakeWrite'));
    const [stream, ...others] = resourcesGranting(app.workers.consumerFunctions.get('ingest')!, 'firehose:PutRecordBatch');
    expect(others).toEqual([]);
    expect(stream).toContain(':deliverystream/AgentObservability-Lake-records');
    expect(rows.flatMap((r) => statementsOf(r.fn).flatMap(actionsOf)).filter((a) => a.startsWith('firehose:') && a !== 'firehose:PutRecordBatch')).toEqual([]);
  });

  it("lets only the readers, deleters and exporters run Athena queries, in the lake's workgroup only", () => {
    const querying = [...new Set([...using('lakeRead'), ...using('lakeDelete'), ...using('lakeExport')])].sort();
    expect(withAction('athena:StartQueryExecution')).toEqual(querying);
    for (const name of querying) {
      const fn = rows.find((r) => r.name === name)!.fn;
      expect(resourcesGranting(fn, 'athena:StartQueryExecution')).toEqual([expect.stringContaining(':workgroup/agentobservability_lake_lake')]);
      expect(environmentOf(fn)['LAKE_WORKGROUP']).toBe('agentobservability_lake_lake');
    }
  });

  it('lets only the deleters change the tables, and only the exporter create tables, in the exports database', () => {
    expect(withAction('glue:UpdateTable')).toEqual(using('lakeDelete'));
    expect(withAction('s3:DeleteObject')).toEqual(using('lakeDelete'));
    expect(withAction('glue:CreateTable')).toEqual(using('lakeExport'));
    expect(resourcesGranting(app.workers.consumerFunctions.get('lake')!, 'glue:CreateTable').join(' ')).toContain(
      'agentobservability_lake_lake_exports/export_*',
    );
  });

  it("lets the links' routes read the query results (where exports are) and nothing else of the lake", () => {
    for (const name of using('exportLinks')) {
      const fn = app.routeFunctions.get(name)!;
      expect(resourcesGranting(fn, 's3:GetObject')).toEqual([expect.stringContaining(`-results-`)]);
      expect(resourcesGranting(fn, 's3:GetObject')[0]).toContain(`/${QUERY_RESULTS_PREFIX}*`);
      expect(
        statementsOf(fn)
          .flatMap(actionsOf)
          .filter((a) => /^(athena|glue|firehose):/.test(a)),
      ).toEqual([]);
    }
  });

  it('grants a capability once even when a function names several that share statements', () => {
    for (const { name, fn } of rows) {
      const statements = statementsOf(fn).map((s) => JSON.stringify(s));
      expect(statements.length, name).toBe(new Set(statements).size);
    }
  });

  it('has the workgroup write results, and so exports, where the export adapter looks for them', () => {
    const [workgroup] = Object.values(templateOf(app.lake).findResources('AWS::Athena::WorkGroup')) as Array<{
      Properties: { WorkGroupConfiguration: Record<string, unknown> };
    }>;
    const configuration = workgroup!.Properties.WorkGroupConfiguration as {
      EnforceWorkGroupConfiguration: boolean;
      ResultConfiguration: { OutputLocation: unknown };
    };
    expect(configuration.EnforceWorkGroupConfiguration).toBe(true);
    expect(JSON.stringify(configuration.ResultConfiguration.OutputLocation)).toContain(`/${QUERY_RESULTS_PREFIX}`);
  });
});

describe('the ask capability', () => {
  // Built and synthesized while the tests are collected, as the default app is.
  const custom = buildTestApp({ context: { askModelId: 'us.amazon.nova-pro-v1:0' } });
  custom.app.synth();

  it('takes its model from the askModelId context', () => {
    const ask = custom.routeFunctions.get('search/ask')!;
    expect(environmentOf(ask)).toMatchObject({ ASK_TRANSLATOR: 'bedrock', ASK_MODEL_ID: 'us.amazon.nova-pro-v1:0' });
    expect(resourcesGranting(ask, 'bedrock:InvokeModel').join(' ')).toContain('inference-profile/us.amazon.nova-pro-v1:0');
    expect(functionsOf(custom).filter((fn) => 'ASK_MODEL_ID' in environmentOf(fn))).toEqual([ask]);
  });
});
