// `npm run invoke -- <kind>/<id> <event.json>`: one handler, one event, on a throwaway in-memory runtime.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FunctionKind } from './lambda.ts';
import { errorText } from './log.ts';
import { startLocalService } from './runtime.ts';

const USAGE = `usage: npm run invoke -- <kind>/<id> <event.json>
  kind: http (a route id), worker (a queue consumer) or job (a scheduled job)
  e.g.  npm run invoke -- http/system/health events/http/health.json
        npm run invoke -- worker/notify events/sqs/notify.json`;

const KINDS: readonly FunctionKind[] = ['http', 'worker', 'job'];

const [target, eventFile] = process.argv.slice(2);
const slash = target?.indexOf('/') ?? -1;
const kind = target?.slice(0, slash) as FunctionKind;
const id = target?.slice(slash + 1);
if (!target || !eventFile || slash < 1 || !KINDS.includes(kind)) {
  console.error(USAGE);
  process.exit(2);
}

const event: unknown = JSON.parse(await readFile(eventFile, 'utf8'));
const service = await startLocalService({ log: (line) => console.error(line) });
let failed = false;
try {
  console.log(JSON.stringify(await service.invoke(kind, id!, event), null, 2));
  await service.drainQueues();
  for (const file of (await readdir(service.outboxDir)).sort()) {
    console.error(`outbox: ${await readFile(join(service.outboxDir, file), 'utf8')}`);
  }
} catch (err) {
  console.error(errorText(err));
  failed = true;
} finally {
  await service.stop();
}
process.exit(failed ? 1 : 0);
