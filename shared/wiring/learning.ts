import { bedrockNarrator } from '../adapters/narrator.ts';
import { config } from '../config.ts';
import { type Narrator, templateNarrator } from '../domain/profiles/narrative.ts';
import type { LearningDeps } from '../domain/profiles/service.ts';
import type { Ports } from '../domain/store.ts';
import { rollupsRepository } from '../store/rollups.ts';
import { tracesRepository } from '../store/traces.ts';
import { PROFILE_REPOSITORIES, profileDeps } from './profiles.ts';

/** The repositories learning a profile uses: the regenerate endpoint and the learning job. */
export const LEARNING_REPOSITORIES = { ...PROFILE_REPOSITORIES, traces: tracesRepository, rollups: rollupsRepository };

let narrator: Narrator | undefined;

/** What learning a profile needs: only the regenerate endpoint and the learning job bundle the narrator's Bedrock client. */
export const learningDeps = (ports: Ports<keyof typeof LEARNING_REPOSITORIES>): LearningDeps => ({
  ...profileDeps(ports),
  store: ports.store,
  narrator: (narrator ??= config.profiles.narratorModelId ? bedrockNarrator(config.profiles.narratorModelId) : templateNarrator),
});
