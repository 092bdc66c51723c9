import type { QueuePort } from '../ports.ts';
import { traceState } from '../spans/ports.ts';
import { LAKE_QUEUE, type LakeMessage } from './messages.ts';
import type { LakeWriter } from './ports.ts';
import { type LakeSignalInput, type LakeTraceInput, lakeRowsOf } from './records.ts';

/** What the ingest worker hands the lake: the traces it stored (with every span so far) and the signals. */
export interface LakeIngestDeps {
  lake: LakeWriter;
}

/**
 * Writes to the lake every finished trace (its root has arrived and ended, or the service closed it
 * after an hour without spans) that this message touched, each with all its spans stored so far, and
 * the message's signals. A later span of a finished trace writes the trace again, and a redelivered
 * message writes the same rows again: each key holds the latest row. Pending traces wait.
 */
export async function writeToLake(
  tenantId: string,
  traces: ReadonlyArray<{ summary: LakeTraceInput['summary']; stored: LakeTraceInput['spans']; revision: number }>,
  signals: readonly LakeSignalInput[],
  expiresAtSeconds: number,
  deps: LakeIngestDeps,
): Promise<void> {
  const finished = traces.filter((t) => traceState(t.summary) !== 'pending').map((t) => ({ summary: t.summary, spans: t.stored, revision: t.revision }));
  if (finished.length === 0 && signals.length === 0) return;
  await deps.lake.write(lakeRowsOf(tenantId, finished, signals, expiresAtSeconds * 1000));
}

/**
 * Once a deleted agent's data is gone from the table, its rows leave the lake too. The lake worker does
 * it (an Athena DELETE can outlast the ingest worker); by then Firehose has delivered whatever the
 * ingest worker wrote before the agent went (the final sweep waits longer than Firehose buffers).
 */
export async function forgetAgentInLake(tenantId: string, agentId: string, deps: { queue: QueuePort }): Promise<void> {
  const message: LakeMessage = { kind: 'forget-agent', tenantId, agentId };
  await deps.queue.send(LAKE_QUEUE, [message]);
}
