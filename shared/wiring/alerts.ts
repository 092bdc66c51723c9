import { agentsRepository } from '../store/agents.ts';
import { alertsRepository } from '../store/alerts.ts';
import { routePorts } from './routes.ts';

/** The ports of the alert transitions (acknowledge, reopen, resolve). */
export const alertStatusPorts = routePorts({ alerts: alertsRepository, agents: agentsRepository });
