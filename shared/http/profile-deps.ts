import { bedrockNarrator } from '../adapters/narrator.ts';
import type { Ports } from '../adapters/ports.ts';
import { config } from '../config.ts';
import { templateNarrator, type Narrator } from '../domain/profiles/narrative.ts';
import type { ProfileDeps } from '../domain/profiles/service.ts';
import { logger } from './logger.ts';

let narrator: Narrator | undefined;

/** What the profile endpoints and the learning job need; only they bundle the narrator's Bedrock client. */
export const profileDeps = (ports: Ports): ProfileDeps => ({
  store: ports.store,
  clock: ports.clock,
  narrator: (narrator ??= config.profiles.narratorModelId ? bedrockNarrator(config.profiles.narratorModelId) : templateNarrator),
  settings: config.profiles.learning,
  reportError: (message, err) => logger.error(message, err as Error),
});
