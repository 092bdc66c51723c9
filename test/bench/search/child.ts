// The search scenario's own process (see ../analytics/isolated.ts); quiet handler logs first, as run.ts does.
import '../../support/env.ts';
import { answerParent } from '../analytics/isolated.ts';
import { runSearchBench } from './run-search.ts';

answerParent(runSearchBench);
