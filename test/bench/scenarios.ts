import { ingestScenario } from './ingest/scenario.ts';
import type { Scenario } from './scenario.ts';

/** Every scenario `npm run bench` knows, in the order a run without `--scenario` runs them. */
export const scenarios: readonly Scenario[] = [ingestScenario];
