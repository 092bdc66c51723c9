import { bedrockNarrator } from '../adapters/narrator.ts';
import type { Ports } from '../adapters/ports.ts';
import { config } from '../config.ts';
import { templateNarrator, type Narrator } from '../domain/profiles/narrative.ts';
import type { LearningDeps } from '../domain/profiles/service.ts';
import { profileDeps, type PROFILE_REPOSITORIES } from './profile-deps.ts';

let narrator: Narrator | undefined;

/** What learning a profile needs: only the regenerate endpoint and the learning job bundle the narrator's Bedrock client. */
export const learningDeps = (ports: Ports<keyof typeof PROFILE_REPOSITORIES>): LearningDeps => ({
  ...profileDeps(ports),
  narrator: (narrator ??= config.profiles.narratorModelId ? bedrockNarrator(config.profiles.narratorModelId) : templateNarrator),
});
