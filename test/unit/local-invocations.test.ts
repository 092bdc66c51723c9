import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '#shared/observability/logger.ts';
import { installInvokeStore } from '../../infra/local/invoke-store.ts';
import { createInvoker, type FunctionSpec } from '../../infra/local/lambda.ts';

const fn = (name: string): FunctionSpec => ({ name, modulePath: name, timeoutMs: 5_000, memoryMb: 128 });

/** Every JSON line written to stdout or stderr while `work` runs. */
async function linesOf(work: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const record = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const writes = [vi.spyOn(process.stdout, 'write').mockImplementation(record), vi.spyOn(process.stderr, 'write').mockImplementation(record)];
  try {
    await work();
  } finally {
    for (const write of writes) write.mockRestore();
  }
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('local runtime: invocations at once keep their own Powertools state', () => {
  const previous = process.env['AWS_LAMBDA_MAX_CONCURRENCY'];
  beforeAll(() => {
    installInvokeStore();
    return () => {
      if (previous === undefined) delete process.env['AWS_LAMBDA_MAX_CONCURRENCY'];
      else process.env['AWS_LAMBDA_MAX_CONCURRENCY'] = previous;
    };
  });
  afterEach(() => vi.restoreAllMocks());

  it("names each log line by its own function and request, and keeps an invocation's appended keys to it", async () => {
    const logger = createLogger('INFO');
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const slowStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handlers: Record<string, unknown> = {
      'aos-local-http-traces-list': middy(async () => {
        logger.appendKeys({ tenantId: 'tnt_slow' });
        logger.info('slow before');
        started();
        await held;
        logger.info('slow after');
      }).use(injectLambdaContext(logger, { resetKeys: true })),
      'aos-local-worker-ingest': middy(async () => {
        logger.info('quick');
      }).use(injectLambdaContext(logger, { resetKeys: true })),
    };
    const invoke = createInvoker(async (path) => ({ handler: handlers[path] }));

    const entries = await linesOf(async () => {
      const slow = invoke(fn('aos-local-http-traces-list'), {});
      await slowStarted;
      await invoke(fn('aos-local-worker-ingest'), {});
      release();
      await slow;
      logger.info('outside');
    });

    const byMessage = Object.fromEntries(entries.map((entry) => [entry['message'], entry]));
    expect(Object.keys(byMessage).sort()).toEqual(['outside', 'quick', 'slow after', 'slow before']);
    expect(byMessage['slow after']).toMatchObject({ function_name: 'aos-local-http-traces-list', tenantId: 'tnt_slow' });
    expect(byMessage['slow after']!['function_request_id']).toBe(byMessage['slow before']!['function_request_id']);
    expect(byMessage['quick']).toMatchObject({ function_name: 'aos-local-worker-ingest' });
    expect(byMessage['quick']).not.toHaveProperty('tenantId');
    expect(byMessage['quick']!['function_request_id']).not.toBe(byMessage['slow after']!['function_request_id']);
    expect(byMessage['outside']).not.toHaveProperty('function_name');
    expect(byMessage['outside']).not.toHaveProperty('tenantId');
  });

  it("empties an invocation's context once it has settled, so a timer it set neither logs under its name nor keeps its keys", async () => {
    const logger = createLogger('INFO');
    let fired!: () => void;
    const timerFired = new Promise<void>((resolve) => {
      fired = resolve;
    });
    const handler = middy(async () => {
      logger.appendKeys({ tenantId: 'tnt_gone' });
      setTimeout(() => {
        logger.info('later');
        fired();
      }, 20);
      logger.info('during');
    }).use(injectLambdaContext(logger, { resetKeys: false }));
    const invoke = createInvoker(async () => ({ handler }));

    const entries = await linesOf(async () => {
      await invoke(fn('aos-local-worker-evaluate'), {});
      await timerFired;
    });

    const byMessage = Object.fromEntries(entries.map((entry) => [entry['message'], entry]));
    expect(byMessage['during']).toMatchObject({ function_name: 'aos-local-worker-evaluate', tenantId: 'tnt_gone' });
    expect(byMessage['later']).toBeDefined();
    expect(byMessage['later']).not.toHaveProperty('function_name');
    expect(byMessage['later']).not.toHaveProperty('tenantId');
  });
});
