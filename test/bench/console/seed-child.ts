// The console scenario's seeding process (see ../analytics/isolated.ts): its service stops before the timed one starts on what it seeded.
import '../../support/env.ts';
import { answerParent } from '../analytics/isolated.ts';
import { type SeededData, type SeedRequest, seedConsoleData } from './seed.ts';

answerParent<SeedRequest, SeededData>(seedConsoleData);
