import { bedrockTranslator } from '../adapters/ask-bedrock.ts';
import { athenaExportRunner } from '../adapters/exports-athena.ts';
import { localExportRunner } from '../adapters/exports-local.ts';
import { athenaLake } from '../adapters/lake-athena.ts';
import { localLake, notConfigured } from '../adapters/lake-writer.ts';
import { config } from '../config.ts';
import { builtinTranslator, type QueryTranslator } from '../domain/lake/ask.ts';
import { duckdb } from '../domain/lake/dialects.ts';
import type { ExportRunner } from '../domain/lake/exports.ts';
import type { LakeMaintenance, LakeReader } from '../domain/lake/ports.ts';
import { type LakeSettings, lakeSettings } from '../lake-config.ts';

/**
 * The lake ports of the environment (LAKE): DuckDB in this process locally, Firehose and Athena on AWS.
 * A function names the ones it uses (`portsOf(…, { exportRunner })`), so a bundle carries only their
 * clients; the writer, which the ingest worker loads, is in lake-writer.ts with only its own.
 */

function athenaOf(settings: LakeSettings) {
  const aws = settings.aws;
  if (!aws?.database || !aws.workgroup) throw notConfigured('reading the lake (LAKE_DATABASE and LAKE_WORKGROUP on AWS)');
  return athenaLake({ database: aws.database, workgroup: aws.workgroup, timeoutMs: settings.searchTimeoutMs, reuseMinutes: 5 });
}

export function lakeReader(settings: LakeSettings = lakeSettings): LakeReader {
  if (settings.engine === 'athena') return athenaOf(settings);
  if (settings.engine !== 'duckdb') throw notConfigured('reading the lake');
  const open = localLake(settings);
  return { dialect: duckdb, query: async (statement) => (await open()).query(statement) };
}

export function lakeMaintenance(settings: LakeSettings = lakeSettings): LakeMaintenance {
  if (settings.engine === 'athena') return athenaOf(settings);
  if (settings.engine !== 'duckdb') throw notConfigured('maintaining the lake');
  const open = localLake(settings);
  return { dialect: duckdb, execute: async (statements) => (await open()).execute(statements) };
}

export function exportRunner(settings: LakeSettings = lakeSettings): ExportRunner {
  if (settings.engine === 'athena') {
    const aws = settings.aws!;
    if (!aws.exportsBucket || !aws.exportsDatabase) throw notConfigured('exports (LAKE_EXPORTS_BUCKET and LAKE_EXPORTS_DATABASE on AWS)');
    return athenaExportRunner(athenaOf(settings), { bucket: aws.exportsBucket, exportsDatabase: aws.exportsDatabase });
  }
  if (settings.engine !== 'duckdb') throw notConfigured('exports');
  return localExportRunner(localLake(settings), { exportsDir: settings.local!.exportsDir, publicAppUrl: config.publicAppUrl });
}

/** Who turns questions into queries: a Bedrock model when configured (AWS), else the built-in parser. */
export const queryTranslator = (settings: LakeSettings = lakeSettings): QueryTranslator =>
  settings.ask.translator === 'bedrock' ? bedrockTranslator(settings.ask.modelId) : builtinTranslator;
