import { agentsRepository } from '../store/agents.ts';
import { rollupsRepository } from '../store/rollups.ts';
import { routePorts } from './routes.ts';

/** The analytics endpoints' ports: the rollups and the agents they are scoped by. */
export const analyticsPorts = routePorts({ rollups: rollupsRepository, agents: agentsRepository });
