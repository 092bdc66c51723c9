import { config } from '../config.ts';
import type { ProfileDeps } from '../domain/profiles/service.ts';
import type { Ports } from '../domain/store.ts';
import { logger, thrown } from '../observability/logger.ts';
import { agentsRepository } from '../store/agents.ts';
import { profilesRepository } from '../store/profiles.ts';

/** The repositories reading, editing and resetting a profile use. */
export const PROFILE_REPOSITORIES = { profiles: profilesRepository, agents: agentsRepository };

/** What reading, editing and resetting a profile need: no narrator, traces or rollups, so those endpoints bundle neither Bedrock nor the sketch code. */
export const profileDeps = (ports: Ports<keyof typeof PROFILE_REPOSITORIES>): ProfileDeps => ({
  store: ports.store,
  clock: ports.clock,
  settings: config.profiles.learning,
  reportError: (message, err) => logger.error(message, thrown(err)),
});
