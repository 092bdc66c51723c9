// The local runtime on a data directory in a child process, for the crash test: it reports its URL, and
// on request drains its queues or stops; the test kills it with SIGKILL whenever it likes.
import { startLocalService } from '../../../infra/local/runtime.ts';

export type ServiceMessage = { type: 'ready'; baseUrl: string } | { type: 'drained' } | { type: 'failed'; message: string };
export type ServiceControl = { type: 'drain' } | { type: 'stop' };

const dataDir = process.argv[2]!;
const service = await startLocalService({
  dataDir,
  log: () => {},
  ttlSweepEveryMs: false,
  env: { RATE_LIMITS: JSON.stringify({ auth: 1000, ingestion: 100_000, standard: 100_000 }), LOG_LEVEL: 'SILENT' },
});
const tell = (message: ServiceMessage) => process.send!(message);
process.on('message', (message: ServiceControl) => {
  if (message.type === 'drain') {
    service.drainQueues(60_000).then(
      () => tell({ type: 'drained' }),
      (err: Error) => tell({ type: 'failed', message: err.message }),
    );
  } else {
    void service.stop().then(() => process.exit(0));
  }
});
tell({ type: 'ready', baseUrl: service.baseUrl });
