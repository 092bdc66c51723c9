// The console scenario's own process (see ../analytics/isolated.ts).
import '../../support/env.ts';
import { answerParent } from '../analytics/isolated.ts';
import { runConsoleBench } from './run-console.ts';

answerParent(runConsoleBench);
