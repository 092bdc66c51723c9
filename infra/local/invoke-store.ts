import { AsyncLocalStorage } from 'node:async_hooks';
import { InvokeStoreBase } from '@aws/lambda-invoke-store';

type InvocationContext = Record<string | symbol, unknown>;

/**
 * Powertools' per-invocation state (the Logger's Lambda context and appended keys, the Metrics'
 * dimensions and values) as Lambda keeps it when one process runs
 * several invocations at once: in the runtime's InvokeStore (`globalThis.awslambda.InvokeStore`), one
 * context per invocation, used by Powertools once `AWS_LAMBDA_MAX_CONCURRENCY` is set. The local
 * runtime runs every function in one process, HTTP requests beside queue batches, so without it an
 * HTTP request's log lines carried the name and request id of whichever invocation started last.
 *
 * Outside an invocation (the runtime's own work, a module's load, a test calling a handler directly)
 * one shared context stands in, as Powertools' single-invocation mode keeps one: the library's own
 * multi-invocation store throws there instead.
 */
class LocalInvokeStore extends InvokeStoreBase {
  readonly #invocations = new AsyncLocalStorage<InvocationContext>();
  readonly #outside: InvocationContext = {};

  getContext(): InvocationContext {
    return this.#invocations.getStore() ?? this.#outside;
  }

  hasContext(): boolean {
    return this.#invocations.getStore() !== undefined;
  }

  get<T = unknown>(key: string | symbol): T | undefined {
    return this.getContext()[key] as T | undefined;
  }

  set<T = unknown>(key: string | symbol, value: T): void {
    if (this.isProtectedKey(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    this.getContext()[key] = value;
  }

  run<T>(context: InvocationContext, fn: () => T): T {
    return this.#invocations.run(context, fn);
  }
}

let store: LocalInvokeStore | undefined;

/**
 * Installs the process's InvokeStore where Powertools looks for it and sets the variable that makes
 * Powertools use it (`AWS_LAMBDA_MAX_CONCURRENCY`: Powertools reads only whether it is set, and the
 * local runtime bounds nothing by it). Process-wide, like the store: it is not handler configuration,
 * and a process given it without the store (a bundle run on its own) would fail every log call.
 */
export function installInvokeStore(): void {
  if (!store) {
    store = new LocalInvokeStore();
    const global = globalThis as { awslambda?: { InvokeStore?: InvokeStoreBase } };
    (global.awslambda ??= {}).InvokeStore = store;
  }
  process.env['AWS_LAMBDA_MAX_CONCURRENCY'] = 'unbounded';
}

/**
 * Runs `invocation` in a context of its own, named by its request id as Lambda's runtime names it.
 * Timers and promises made during the invocation keep its context after it (the lake's idle timer,
 * an SDK client's cached credentials): once the invocation has settled, the context is emptied, so
 * they neither hold its state (a batch's records) nor log under its name.
 */
export async function inInvocation<T>(requestId: string, invocation: () => Promise<T>): Promise<T> {
  installInvokeStore();
  const context: InvocationContext = { [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId };
  try {
    return await store!.run(context, invocation);
  } finally {
    for (const key of Reflect.ownKeys(context)) delete context[key];
  }
}
