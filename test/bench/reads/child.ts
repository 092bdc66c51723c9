// The reads scenario's own process (see analytics/isolated.ts); quiet handler logs first, as run.ts does.
import '../../support/env.ts';
import { answerParent } from '../analytics/isolated.ts';
import { runReads } from './run-reads.ts';

answerParent(runReads);
