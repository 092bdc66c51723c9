// The lake-writes bench's child process: one run of lake writes in a process of its own, whose memory is the run's alone.
import '../../support/env.ts';
import { answerParent } from '../analytics/isolated.ts';
import { type LakeWritesOutcome, type LakeWritesRun, runLakeWrites } from './writes.ts';

answerParent<LakeWritesRun, LakeWritesOutcome>(runLakeWrites);
