import { sqsQueue } from '../adapters/queue.ts';
import { agentsRepository } from '../store/agents.ts';
import { tenantsRepository } from '../store/tenants.ts';
import { routePorts } from './routes.ts';

/** The OTLP/HTTP export endpoints' ports: the tenant and its agents to check, the ingest queue to send to. */
export const otlpExportPorts = routePorts({ tenants: tenantsRepository, agents: agentsRepository }, { queue: sqsQueue });
