import type { Ports } from '../adapters/ports.ts';
import { config } from '../config.ts';
import type { ProfileDeps } from '../domain/profiles/service.ts';
import { agentsRepository } from '../store/agents.ts';
import { profilesRepository } from '../store/profiles.ts';
import { rollupsRepository } from '../store/rollups.ts';
import { tracesRepository } from '../store/traces.ts';
import { logger } from './logger.ts';

/** The repositories the profile endpoints and the learning job use. */
export const PROFILE_REPOSITORIES = { profiles: profilesRepository, agents: agentsRepository, traces: tracesRepository, rollups: rollupsRepository };

/** What reading, editing and resetting a profile need: no narrator, so those endpoints bundle no Bedrock client. */
export const profileDeps = (ports: Ports<keyof typeof PROFILE_REPOSITORIES>): ProfileDeps => ({
  store: ports.store,
  clock: ports.clock,
  settings: config.profiles.learning,
  reportError: (message, err) => logger.error(message, err),
});
