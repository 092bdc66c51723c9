import type { AgentRecord } from '#shared/domain/agents/ports.ts';

/** An agent as ingestion creates it on first sight (named by its id), created and updated at `at`; `fields` overrides any of it. */
export const agentRecord = (tenantId: string, id: string, at = '2026-01-01T00:00:00.000Z', fields: Partial<AgentRecord> = {}): AgentRecord => ({
  id,
  tenantId,
  name: id,
  description: '',
  profileSettings: { learningEnabled: true },
  source: 'implicit',
  createdAt: at,
  updatedAt: at,
  ...fields,
});
