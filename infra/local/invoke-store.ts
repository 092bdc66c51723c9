import { AsyncLocalStorage } from 'node:async_hooks';
import { InvokeStoreBase } from '@aws/lambda-invoke-store';

type InvocationContext = Record<string | symbol, unknown>;

/**
 * Powertools' per-invocation state (the Logger's Lambda context and appended keys, the Metrics'
 * dimensions and values, the batch processor's records) as Lambda keeps it when one process runs
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
 * Installs the process's InvokeStore where Powertools looks for it, and answers the variable that
 * makes Powertools use it, for the handlers' environment (Powertools reads only whether it is set;
 * the local runtime bounds nothing by it).
 */
export function installInvokeStore(): { AWS_LAMBDA_MAX_CONCURRENCY: string } {
  if (!store) {
    store = new LocalInvokeStore();
    const global = globalThis as { awslambda?: { InvokeStore?: InvokeStoreBase } };
    global.awslambda = { ...global.awslambda, InvokeStore: store };
  }
  return { AWS_LAMBDA_MAX_CONCURRENCY: 'unbounded' };
}

/** Runs `invocation` in a context of its own, named by its request id as Lambda's runtime names it. */
export function inInvocation<T>(requestId: string, invocation: () => T): T {
  installInvokeStore();
  return store!.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId }, invocation);
}
