import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, logLevelOf, thrown } from '#shared/observability/logger.ts';

/** The lines a logger made here writes (warnings and errors to stderr, the rest to stdout), parsed; every entry is one JSON line. */
function capture(level: Parameters<typeof createLogger>[0] = 'INFO') {
  const lines: string[] = [];
  const record = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const writes = [vi.spyOn(process.stdout, 'write').mockImplementation(record), vi.spyOn(process.stderr, 'write').mockImplementation(record)];
  const logger = createLogger(level);
  const entries = () => {
    for (const write of writes) write.mockRestore();
    return lines.map((line) => {
      expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n')).toBe(true);
      return JSON.parse(line) as Record<string, unknown>;
    });
  };
  return { logger, entries };
}

afterEach(() => vi.restoreAllMocks());

describe('structured logger (Powertools Logger)', () => {
  it('writes one JSON line per entry: level, message, timestamp, service, then the fields', () => {
    const { logger, entries } = capture();
    logger.info('request', { route: 'agents/get', status: 200, latencyMs: 12, tenantId: undefined });
    const [entry] = entries();
    expect(entry).toMatchObject({ level: 'INFO', message: 'request', service: 'agent-observability', route: 'agents/get', status: 200, latencyMs: 12 });
    expect(entry).not.toHaveProperty('tenantId');
    expect(new Date(entry!['timestamp'] as string).getTime()).toBeGreaterThan(0);
  });

  it('keeps appended keys until reset', () => {
    const { logger, entries } = capture();
    logger.appendKeys({ requestId: 'r1' });
    logger.appendKeys({ tenantId: 't1' });
    logger.warn('slow', { requestId: 'r2' });
    logger.resetKeys();
    logger.error('after');
    const [first, second] = entries();
    expect(first).toMatchObject({ level: 'WARN', message: 'slow', requestId: 'r2', tenantId: 't1' });
    expect(second).not.toHaveProperty('requestId');
    expect(second).not.toHaveProperty('tenantId');
  });

  it('logs an error as name, message, stack and cause; anything else thrown as an error saying what it was', () => {
    const { logger, entries } = capture();
    logger.error('failed', new TypeError('outer', { cause: new Error('inner') }));
    logger.error('thrown', thrown('a string'));
    logger.error('nested', { cause: new RangeError('bad'), count: 10n });
    const [error, text, nested] = entries();
    expect(error!['error']).toMatchObject({
      name: 'TypeError',
      message: 'outer',
      stack: expect.stringContaining('TypeError: outer'),
      cause: { name: 'Error', message: 'inner' },
    });
    expect(text!['error']).toMatchObject({ name: 'NonErrorThrown', message: 'a string' });
    expect(nested).toMatchObject({ cause: { name: 'RangeError', message: 'bad' }, count: '10' });
  });

  it('redacts every field whose name says it holds a secret, at any depth, and keeps counts of tokens', () => {
    const { logger, entries } = capture();
    logger.info('careless', {
      password: 'hunter2-password',
      request: {
        headers: { authorization: 'Bearer eyJ.secret.sig', 'x-api-key': 'aos_live_key' },
        body: { newPassword: 'n3w-password', resetToken: 'link-token' },
      },
      accessToken: 'eyJ.token.sig',
      inputTokens: 1200,
    });
    const [entry] = entries();
    const text = JSON.stringify(entry);
    for (const secret of ['hunter2-password', 'eyJ.secret.sig', 'aos_live_key', 'n3w-password', 'link-token', 'eyJ.token.sig'])
      expect(text).not.toContain(secret);
    expect(entry).toMatchObject({
      password: '[redacted]',
      accessToken: '[redacted]',
      inputTokens: 1200,
      request: { headers: { authorization: '[redacted]', 'x-api-key': '[redacted]' } },
    });
  });

  it('still logs an entry whose fields are circular, keeping the others', () => {
    const { logger, entries } = capture();
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    logger.info('circular', { circular, kept: 1 });
    expect(entries()[0]).toMatchObject({ level: 'INFO', message: 'circular', kept: 1 });
  });

  it('never throws out of a log call, whatever it is given', () => {
    const { logger, entries } = capture();
    const throwing = {
      toString: () => {
        throw new Error('no');
      },
    };
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const details: unknown[] = [
      thrown(Object.create(null)),
      thrown(throwing),
      {
        get field() {
          throw new Error('getter');
        },
      },
      proxy,
      JSON.parse('{"__proto__": {"polluted": true}, "visible": 1}'),
    ];
    for (const detail of details) expect(() => logger.error('hostile', detail as Error)).not.toThrow();
    const logged = entries();
    expect(logged).toHaveLength(details.length);
    for (const entry of logged) expect(entry).toMatchObject({ level: 'ERROR', message: 'hostile' });
    expect(logged[1]!['error']).toMatchObject({ message: '[unprintable]' });
    expect(logged[4]!['visible']).toBe(1);
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

  it("names the request's X-Ray trace when Lambda provides it", () => {
    vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
    try {
      const { logger, entries } = capture();
      logger.info('request');
      expect(entries()[0]).toMatchObject({ xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793' });
    } finally {
      vi.unstubAllEnvs();
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
