import type { Ids } from '../ports.ts';
import type { AgentRecord } from './ports.ts';

/** An agent created because telemetry named it (`source: implicit`), for `AgentsRepository.ensure`. */
export const implicitAgent = (tenantId: string, name: string, ids: Ids, now: Date): AgentRecord => ({
  id: ids.next('agt'),
  tenantId,
  name: name.trim(),
  description: '',
  profileSettings: { learningEnabled: true },
  source: 'implicit',
  createdAt: now.toISOString(),
  updatedAt: now.toISOString(),
});
