import type { Clock } from '../ports.ts';
import type { LakeMessage } from './messages.ts';
import type { LakeMaintenance } from './ports.ts';
import { expireSql, forgetAgentSql } from './sql.ts';

/** A deleted agent's rows leave every lake table (the lake worker, after the table's purge). */
export async function forgetAgent(message: Extract<LakeMessage, { kind: 'forget-agent' }>, deps: { lakeMaintenance: LakeMaintenance }): Promise<void> {
  await deps.lakeMaintenance.execute(forgetAgentSql(deps.lakeMaintenance.dialect, message.tenantId, message.agentId));
}

/**
 * Plan retention in the lake: every row carries the moment its trace expires (the same as its items'
 * TTL in the table), and the hourly job deletes the rows past it. Searches leave such rows out even
 * before the job has run.
 */
export async function expireLakeRows(deps: { lakeMaintenance: LakeMaintenance; clock: Clock }): Promise<void> {
  await deps.lakeMaintenance.execute(expireSql(deps.lakeMaintenance.dialect, deps.clock.now().getTime()));
}
