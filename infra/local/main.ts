// `npm start` (start.js builds this and runs the build): the whole service on this machine. PORT
// (3000), HOST (127.0.0.1), DATA_DIR (.data). Runs from the sources under tsx too.
import { resolve } from 'node:path';
import { ensureConsoleBuildApart } from '../../console/build.ts';
import { ConfigError } from '../../shared/config-error.ts';
import { DataDirInUseError } from './data-dir-lock.ts';
import { type LocalService, serviceModulesFrom, startLocalService } from './runtime.ts';

// Lambda runs Node 22+; the SDK's notice that its Node 20 support ends is noise on a laptop.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);
const dataDir = resolve(process.env.DATA_DIR ?? '.data');

if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number, not "${process.env.PORT}".`);
  process.exit(1);
}

// The console is built here when its build is missing or older than its sources (a few seconds;
// checking takes milliseconds), in a process of its own, so `npm install && npm start` serves it with no build step of its own.
const consoleBuild = await ensureConsoleBuildApart().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
if (consoleBuild.builtInMs > 0) console.log(`Built the console in ${(consoleBuild.builtInMs / 1000).toFixed(1)} s`);

let service: LocalService;
try {
  const serviceModules = serviceModulesFrom(import.meta.url, '../../');
  service = await startLocalService({ host, port, dataDir, consoleDir: consoleBuild.dir, serviceModules });
} catch (err) {
  if (err instanceof DataDirInUseError || err instanceof ConfigError) {
    console.error(err.message);
  } else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(`Port ${port} on ${host} is already in use: stop whatever holds it, or choose another, e.g. PORT=${port + 1} npm start`);
  } else {
    throw err;
  }
  process.exit(1);
}

console.log(welcome(service));

/**
 * A second Ctrl-C forces the exit, but one Ctrl-C can arrive twice: the terminal signals every
 * process of its group, and cross-env (npm start's parent of this process) forwards the copy it got.
 */
const SAME_STOP_MS = 1000;
let stoppingSince: number | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < SAME_STOP_MS) return;
      console.log('Forced exit.');
      process.exit(1);
    }
    stoppingSince = Date.now();
    console.log('Stopping: finishing requests and queued messages (press Ctrl-C again to force)...');
    service.stop().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}

function welcome({ baseUrl, dataDir, outboxDir }: LocalService): string {
  const json = "-H 'content-type: application/json'";
  const login = `{"email":"ada@example.com","password":"correct-horse-battery"}`;
  return `
Agent Observability Service: ${baseUrl}
  console ${baseUrl.replace(/\/api$/, '/')}
  data    ${dataDir} (DynamoDB table, queues, trace lake, exports and signing seed; delete it to start afresh)
  outbox  ${outboxDir} (e-mails and SMS, one JSON file each)
  queues  on disk: what was accepted is kept through a crash; Ctrl-C stores what is due before stopping

Try it:
  curl -s ${baseUrl}/health
  curl -s -X POST ${baseUrl}/auth/register ${json} \\
    -d '{"email":"ada@example.com","password":"correct-horse-battery","firstName":"Ada","lastName":"Lovelace"}'
  TOKEN=$(curl -s -X POST ${baseUrl}/auth/login ${json} -d '${login}' \\
    | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.accessToken')
  curl -s ${baseUrl}/users/profile -H "Authorization: Bearer $TOKEN"
  curl -s -X POST ${baseUrl}/keys -H "Authorization: Bearer $TOKEN" ${json} -d '{"name":"my agent"}'
`;
}
