import { agentsRepository } from '../store/agents.ts';
import { rollupsRepository } from '../store/rollups.ts';
import { tenantsRepository } from '../store/tenants.ts';

/**
 * What an agent as the API shows it reads: the agent, its plan's retention and its rollups.
 * Apart from the accounts' deps, whose endpoints would otherwise bundle the rollups' sketch and protobuf code.
 */
export const AGENT_REPOSITORIES = { agents: agentsRepository, tenants: tenantsRepository, rollups: rollupsRepository };
