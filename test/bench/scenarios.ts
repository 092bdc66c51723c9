import { analyticsScenario } from './analytics/scenario.ts';
import { coldStartScenario } from './cold-start/scenario.ts';
import { consoleScenario } from './console/scenario.ts';
import { ingestScenario } from './ingest/scenario.ts';
import { lakeWritesScenario } from './lake-writes/scenario.ts';
import { loadScenario } from './load/scenario.ts';
import { memoryScenario } from './memory/scenario.ts';
import { otlpDecodeScenario } from './otlp-decode/scenario.ts';
import { readsScenario } from './reads/scenario.ts';
import type { Scenario } from './scenario.ts';
import { searchScenario } from './search/scenario.ts';
import { sessionRecountScenario } from './sessions/recount.ts';
import { sessionsScenario } from './sessions/scenario.ts';

/** Every scenario `npm run bench` knows, in the order a run without `--scenario` runs them. */
export const scenarios: readonly Scenario[] = [
  ingestScenario,
  otlpDecodeScenario,
  loadScenario,
  analyticsScenario,
  readsScenario,
  coldStartScenario,
  consoleScenario,
  memoryScenario,
  lakeWritesScenario,
  searchScenario,
  sessionsScenario,
  sessionRecountScenario,
];
