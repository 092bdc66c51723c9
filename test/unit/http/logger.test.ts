import { describe, expect, it } from 'vitest';
import { createLogger, logLevelOf } from '../../../shared/http/logger.ts';

function capture(level: Parameters<typeof createLogger>[0] = 'INFO') {
  const lines: string[] = [];
  const logger = createLogger(level, (line) => lines.push(line));
  const entries = () => lines.map((line) => {
    expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n')).toBe(true);
    return JSON.parse(line) as Record<string, unknown>;
  });
  return { logger, entries };
}

describe('structured logger', () => {
  it('writes one JSON line per entry: level, message, timestamp, service, then the fields', () => {
    const { logger, entries } = capture();
    logger.info('request', { route: 'agents/get', status: 200, latencyMs: 12, tenantId: undefined });
    const [entry] = entries();
    expect(entry).toEqual({ level: 'INFO', message: 'request', timestamp: expect.any(String), service: 'agent-observability', route: 'agents/get', status: 200, latencyMs: 12 });
    expect(new Date(entry!['timestamp'] as string).toISOString()).toBe(entry!['timestamp']);
  });

  it('keeps appended keys until reset, a field never overriding level or message', () => {
    const { logger, entries } = capture();
    logger.appendKeys({ requestId: 'r1' });
    logger.appendKeys({ tenantId: 't1' });
    logger.warn('slow', { level: 'DEBUG', message: 'forged', requestId: 'r2' });
    logger.resetKeys();
    logger.error('after');
    const [first, second] = entries();
    expect(first).toMatchObject({ level: 'WARN', message: 'slow', requestId: 'r2', tenantId: 't1' });
    expect(second).not.toHaveProperty('requestId');
    expect(second).not.toHaveProperty('tenantId');
  });

  it('logs an error as name, message, stack and cause; anything else thrown as its text', () => {
    const { logger, entries } = capture();
    logger.error('failed', new TypeError('outer', { cause: new Error('inner') }));
    logger.error('thrown', 'a string');
    logger.error('nested', { cause: new RangeError('bad'), count: 10n });
    const [error, text, nested] = entries();
    expect(error!['error']).toMatchObject({ name: 'TypeError', message: 'outer', stack: expect.stringContaining('TypeError: outer'), cause: { name: 'Error', message: 'inner' } });
    expect(text!['detail']).toBe('a string');
    expect(nested).toMatchObject({ cause: { name: 'RangeError', message: 'bad' }, count: '10' });
  });

  it('still logs an entry whose fields cannot be serialised, keeping the others', () => {
    const { logger, entries } = capture();
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    logger.info('circular', { circular, kept: 1 });
    expect(entries()[0]).toMatchObject({ level: 'INFO', message: 'circular', circular: '[unserialisable]', kept: 1 });
  });

  it('never throws out of a log call, whatever it is given', () => {
    const { logger, entries } = capture();
    const throwing = { toString: () => { throw new Error('no'); } };
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const badStack = new Error('stack');
    Object.defineProperty(badStack, 'stack', { get: () => { throw new Error('no stack'); } });
    const details: unknown[] = [
      new Error('outer', { cause: Object.create(null) }),
      new Error('outer', { cause: throwing }),
      { get field() { throw new Error('getter'); } },
      proxy,
      badStack,
      throwing,
      JSON.parse('{"__proto__": {"polluted": true}, "visible": 1}'),
    ];
    for (const detail of details) expect(() => logger.error('hostile', detail)).not.toThrow();
    const logged = entries();
    expect(logged).toHaveLength(details.length);
    for (const entry of logged) expect(entry).toMatchObject({ level: 'ERROR', message: 'hostile' });
    expect(logged[0]!['error']).toMatchObject({ message: 'outer', cause: '[unprintable]' });
    expect(logged[4]!['error']).toEqual({ name: 'Error', message: 'stack' });
    expect(logged[6]!['visible']).toBe(1);
    expect(Object.getOwnPropertyDescriptor(logged[6], '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('drops entries below its level; SILENT drops all', () => {
    const warn = capture('WARN');
    warn.logger.info('hidden');
    warn.logger.warn('shown');
    warn.logger.error('shown too');
    expect(warn.entries().map((e) => e['message'])).toEqual(['shown', 'shown too']);
    const silent = capture('SILENT');
    silent.logger.error('hidden');
    expect(silent.entries()).toEqual([]);
  });

  it("names the function and the request's X-Ray trace when Lambda provides them", () => {
    const saved = { name: process.env.AWS_LAMBDA_FUNCTION_NAME, trace: process.env._X_AMZN_TRACE_ID };
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'aos-agents-get';
    process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
    try {
      const { logger, entries } = capture();
      logger.info('request');
      expect(entries()[0]).toMatchObject({ function: 'aos-agents-get', xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793' });
    } finally {
      for (const [key, value] of [['AWS_LAMBDA_FUNCTION_NAME', saved.name], ['_X_AMZN_TRACE_ID', saved.trace]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it('takes its level from LOG_LEVEL, else Lambda’s log level control, else INFO; a misspelt level fails fast', () => {
    expect(logLevelOf({})).toBe('INFO');
    expect(logLevelOf({ LOG_LEVEL: 'error' })).toBe('ERROR');
    expect(logLevelOf({ AWS_LAMBDA_LOG_LEVEL: 'WARN' })).toBe('WARN');
    expect(logLevelOf({ LOG_LEVEL: 'DEBUG', AWS_LAMBDA_LOG_LEVEL: 'WARN' })).toBe('DEBUG');
    expect(logLevelOf({ AWS_LAMBDA_LOG_LEVEL: 'TRACE' })).toBe('DEBUG');
    expect(logLevelOf({ AWS_LAMBDA_LOG_LEVEL: 'FATAL' })).toBe('ERROR');
    expect(() => logLevelOf({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL/);
  });
});
