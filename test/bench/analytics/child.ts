// The analytics scenario's own process (see isolated.ts); quiet handler logs first, as run.ts does.
import '../../support/env.ts';
import { answerParent } from './isolated.ts';
import { runAnalytics } from './run-analytics.ts';

answerParent(runAnalytics);
