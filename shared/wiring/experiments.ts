import { agentsRepository } from '../store/agents.ts';
import { experimentsRepository } from '../store/experiments.ts';
import { routePorts } from './routes.ts';

/** The ports of the experiment transitions (start, pause, stop). */
export const experimentStatusPorts = routePorts({ experiments: experimentsRepository, agents: agentsRepository });
