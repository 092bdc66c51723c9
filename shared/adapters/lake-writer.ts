import { ConfigError } from '../config-error.ts';
import type { LakeWriter } from '../domain/lake/ports.ts';
import { type LakeSettings, lakeSettings } from '../lake-config.ts';
import { type LocalLake, openLocalLake } from './lake-duckdb.ts';
import { firehoseLakeWriter } from './lake-firehose.ts';

/** Writing to the lake (the ingest worker): Firehose on AWS, DuckDB in this process locally; the readers' ports are made in shared/wiring/lake.ts. */
export const notConfigured = (what: string) => new ConfigError(`invalid configuration: ${what} needs LAKE (duckdb or athena) and its settings`);

/** The local lake, opened on first use. */
export function localLake(settings: LakeSettings): () => Promise<LocalLake> {
  const local = settings.local;
  if (!local) throw notConfigured('the local lake');
  return () => openLocalLake(local);
}

export function lakeWriter(settings: LakeSettings = lakeSettings): LakeWriter {
  if (settings.engine === 'athena' && settings.aws?.firehoseStream) return firehoseLakeWriter(settings.aws.firehoseStream);
  if (settings.engine !== 'duckdb') throw notConfigured('writing to the lake (LAKE_FIREHOSE_STREAM on AWS)');
  const open = localLake(settings);
  return { write: async (rows) => (await open()).write(rows) };
}
