import { randomBytes, randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { type Catalog, httpHandlerModule, jobModule, type QueueDef, type RouteDef, type ScheduleDef, workerModule } from '#shared/catalog.ts';
import { inInvocation } from './invoke-store.ts';
import { LOCAL_ACCOUNT } from './local-account.ts';

/** Imports a repository module (a path such as `functions/http/system/health.ts`). */
export type LoadModule = (modulePath: string) => Promise<unknown>;

type Handler = (event: unknown, context: Context) => unknown;

/** What the runtime needs to know to invoke one function the way Lambda would. */
export interface FunctionSpec {
  name: string;
  modulePath: string;
  timeoutMs: number;
  memoryMb: number;
}

const DEFAULT_MEMORY_MB = 128;
/** API Gateway gives up on an integration after 30 s. */
const HTTP_TIMEOUT_MS = 29_000;
const JOB_TIMEOUT_MS = 5 * 60_000;

const functionName = (kind: string, id: string) => `aos-local-${kind}-${id.replaceAll('/', '-')}`;

export const httpFunction = (route: Pick<RouteDef, 'id' | 'memoryMb'>): FunctionSpec => ({
  name: functionName('http', route.id),
  modulePath: httpHandlerModule(route.id),
  timeoutMs: HTTP_TIMEOUT_MS,
  memoryMb: route.memoryMb ?? DEFAULT_MEMORY_MB,
});

/** A consumer may run as long as its messages stay invisible, no longer. */
export const workerFunction = (queue: QueueDef): FunctionSpec => ({
  name: functionName('worker', queue.consumer),
  modulePath: workerModule(queue.consumer),
  timeoutMs: queue.visibilityTimeoutSeconds * 1000,
  memoryMb: DEFAULT_MEMORY_MB,
});

export const jobFunction = (schedule: ScheduleDef): FunctionSpec => ({
  name: functionName('job', schedule.job),
  modulePath: jobModule(schedule.job),
  timeoutMs: JOB_TIMEOUT_MS,
  memoryMb: DEFAULT_MEMORY_MB,
});

export type Invoke = (fn: FunctionSpec, event: unknown) => Promise<unknown>;

/**
 * A function ran past its timeout and was abandoned. Lambda would have stopped it; here its handler
 * may still be running, holding what it was given, until `settled`.
 */
export class InvocationTimeout extends Error {
  constructor(
    fn: FunctionSpec,
    readonly settled: Promise<void>,
  ) {
    super(`${fn.name} timed out after ${fn.timeoutMs} ms`);
  }
}

/**
 * Invokes handlers like Lambda: each module is imported on first use and kept (a warm container;
 * a failed import is retried on the next invocation, like a failed cold start), gets a Context and
 * an InvokeStore context of its own (invocations run at once in this process), and is abandoned with
 * an `InvocationTimeout` once the function's timeout has passed.
 */
export function createInvoker(loadModule: LoadModule): Invoke {
  const handlers = new Map<string, Promise<Handler>>();

  function handlerOf(modulePath: string): Promise<Handler> {
    let handler = handlers.get(modulePath);
    if (!handler) {
      handler = loadModule(modulePath).then((mod) => {
        const exported = (mod as { handler?: unknown } | undefined)?.handler;
        if (typeof exported !== 'function') throw new Error(`${modulePath} does not export a handler function`);
        return exported as Handler;
      });
      handlers.set(modulePath, handler);
      handler.catch(() => handlers.delete(modulePath));
    }
    return handler;
  }

  return async (fn, event) => {
    const handler = await handlerOf(fn.modulePath);
    const context = lambdaContext(fn);
    const running = inInvocation(context.awsRequestId, () => Promise.resolve(handler(event, context)));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      const settled = running.then(
        () => undefined,
        () => undefined,
      );
      timer = setTimeout(() => reject(new InvocationTimeout(fn, settled)), fn.timeoutMs);
    });
    try {
      return await Promise.race([running, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}

function lambdaContext(fn: FunctionSpec): Context {
  const deadline = Date.now() + fn.timeoutMs;
  const today = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  const callbackStyle = () => {
    throw new Error('context.done/fail/succeed are not supported: return a value or throw');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_ACCOUNT.region}:${LOCAL_ACCOUNT.accountId}:function:${fn.name}`,
    memoryLimitInMB: String(fn.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: `${today}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: callbackStyle,
    fail: callbackStyle,
    succeed: callbackStyle,
  };
}

export type FunctionKind = 'http' | 'worker' | 'job';

/** The function behind `<kind>/<id>`: an HTTP route id, a queue's consumer or a schedule's job. */
export function functionFor(catalog: Catalog, kind: FunctionKind, id: string): FunctionSpec {
  const functions = functionsOf(catalog, kind);
  const fn = functions.get(id);
  if (!fn) throw new Error(`no ${kind} function ${id} in the catalog; known: ${[...functions.keys()].join(', ') || 'none'}`);
  return fn;
}

function functionsOf(catalog: Catalog, kind: FunctionKind): Map<string, FunctionSpec> {
  switch (kind) {
    case 'http':
      return new Map([...catalog.routes, catalog.fallbackRoute].map((r) => [r.id, httpFunction(r)]));
    case 'worker':
      return new Map(catalog.queues.map((q) => [q.consumer, workerFunction(q)]));
    case 'job':
      return new Map(catalog.schedules.map((s) => [s.job, jobFunction(s)]));
  }
}
