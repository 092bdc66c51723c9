// The console scenario's timed process (see ../analytics/isolated.ts).
import '../../support/env.ts';
import { answerParent } from '../analytics/isolated.ts';
import { type MeasureRequest, runConsoleBench } from './run-console.ts';

answerParent<MeasureRequest>(runConsoleBench);
