import { describe, expect, it } from 'vitest';
import { DEFAULT_ALERT_CONFIG } from '#shared/domain/alerts/config.ts';
import { alertEmail, alertSms, formatMeasure, messageId, recipientsOf, truncate, typeLabel } from '#shared/domain/alerts/notify.ts';
import { outboundMessageSchema } from '#shared/domain/notifications/messages.ts';
import { alertRecord } from './notify-world.ts';

const APP = 'https://app.example.com';

describe('alert e-mail', () => {
  it('has a subject with severity, agent and type', () => {
    expect(alertEmail(alertRecord(), APP, 5).subject).toBe('[HIGH] support-bot: error alert');
    expect(alertEmail(alertRecord({ type: 'highInputTokens', severity: 'warning' }), APP, 5).subject).toBe('[WARNING] support-bot: high input tokens alert');
  });

  it('tells what happened, how often, since when, and links the latest trace and the alert', () => {
    const { text } = alertEmail(
      alertRecord({ type: 'highDuration', severity: 'warning', message: 'trace "checkout" took 6200 ms (threshold 5000 ms)', value: 6200, threshold: 5000 }),
      APP,
      5,
    );
    expect(text).toBe(
      [
        'WARNING: high duration alert on agent "support-bot"',
        '',
        'trace "checkout" took 6200 ms (threshold 5000 ms)',
        '',
        'Value:       6,200 ms (threshold 5,000 ms)',
        'Occurrences: 3',
        'First seen:  2026-11-20 09:58:00 UTC',
        'Last seen:   2026-11-20 10:00:00 UTC',
        'Status:      open',
        '',
        'Latest trace: https://app.example.com/traces/trace-latest',
        '  API: GET /api/spans/traces/trace-latest',
        'Alert: https://app.example.com/alerts/alt_1',
        '  API: GET /api/spans/alerts/alt_1',
        '',
        'Further high duration occurrences on this agent within 5 minutes are counted on the alert without another notification.',
      ].join('\n'),
    );
  });

  it('has no value line for a plain error, and no cooldown line without a cooldown', () => {
    const { text } = alertEmail(alertRecord(), APP, 0);
    expect(text).not.toMatch(/Value:|Confidence:|Further/);
    expect(alertEmail(alertRecord(), APP, 1).text).toContain('within 1 minute are');
  });

  it("gives the judge's confidence and reasoning for LLM-analysed alerts", () => {
    const alert = alertRecord({ type: 'hallucination', category: 'llm', value: 0.92, threshold: 0.7, reasoning: 'Cites a refund policy that does not exist.' });
    const { text } = alertEmail(alert, APP, 5);
    expect(text).toContain('Confidence:  0.92 (threshold 0.70)');
    expect(text).toContain("Judge's reasoning:\nCites a refund policy that does not exist.");
  });

  it('keeps a subject on one line', () => {
    expect(alertEmail(alertRecord({ agentName: 'support\nbot' }), APP, 5).subject).toBe('[HIGH] support bot: error alert');
  });
});

describe('measures', () => {
  it.each([
    ['highDuration', 6200, '6,200 ms'],
    ['timeout', 30000.4, '30,000 ms'],
    ['highInputTokens', 120000, '120,000 tokens'],
    ['highOutputTokens', 51234, '51,234 tokens'],
    ['highCost', 1.25, '$1.25'],
    ['highCost', 1, '$1.00'],
    ['highCost', 0.004215, '$0.004215'],
    ['quality', 0.7, '0.70'],
  ])('%s %d reads %s', (type, value, expected) => {
    expect(formatMeasure(type, value)).toBe(expected);
  });

  it('labels types in words', () => {
    expect(['error', 'highOutputTokens', 'nsfw', 'timeout'].map(typeLabel)).toEqual(['error', 'high output tokens', 'nsfw', 'timeout']);
  });
});

describe('alert SMS', () => {
  it('reads severity, agent, type, message and occurrence count', () => {
    expect(alertSms(alertRecord())).toBe('[HIGH] support-bot error: llm span "answer" failed: RateLimitError (x3)');
    expect(alertSms(alertRecord({ occurrenceCount: 1 }))).toBe('[HIGH] support-bot error: llm span "answer" failed: RateLimitError');
  });

  it('shortens a long message, keeping the count, to at most 160 characters', () => {
    const text = alertSms(alertRecord({ message: `tool span "search" failed: ${'upstream error '.repeat(20)}`, occurrenceCount: 1234 }));
    expect(text.length).toBeLessThanOrEqual(160);
    expect(text).toMatch(/^\[HIGH\] support-bot error: tool span "search" failed: upstream error .*\.\.\. \(x1234\)$/);
    expect(outboundMessageSchema.safeParse({ id: 'm', channel: 'sms', to: '+14155550100', text }).success).toBe(true);
  });

  it('shortens a long agent name too, and puts a multi-line message on one line', () => {
    const text = alertSms(alertRecord({ agentName: 'a'.repeat(200), message: 'line one\n\tline two' }));
    expect(text).toBe(`[HIGH] ${'a'.repeat(37)}... error: line one line two (x3)`);
  });

  it('never splits a character when it cuts', () => {
    expect(truncate('ab😀cdef', 6)).toBe('ab...');
    expect(truncate('ab😀cdef', 7)).toBe('ab😀...');
    expect(truncate('short', 5)).toBe('short');
  });
});

describe('recipients and message ids', () => {
  const config = {
    ...DEFAULT_ALERT_CONFIG,
    contacts: {
      email: [
        { address: 'a@example.com', enabled: true },
        { address: 'b@example.com', enabled: false },
      ],
      sms: [{ phoneNumber: '+14155550100', enabled: true }],
    },
  };

  it('are the enabled contacts of the given channels, in channel order', () => {
    expect(recipientsOf(config, ['sms', 'email'])).toEqual([
      { channel: 'sms', to: '+14155550100' },
      { channel: 'email', to: 'a@example.com' },
    ]);
    expect(recipientsOf(config, [])).toEqual([]);
  });

  it('a message id is the same for the same job and recipient, different otherwise, and hides the address', () => {
    const id = messageId('alt_1:o1', { channel: 'email', to: 'a@example.com' });
    expect(messageId('alt_1:o1', { channel: 'email', to: 'A@example.com' })).toBe(id);
    expect(messageId('alt_1:o2', { channel: 'email', to: 'a@example.com' })).not.toBe(id);
    expect(messageId('alt_1:o1', { channel: 'email', to: 'b@example.com' })).not.toBe(id);
    expect(id).toMatch(/^alertmsg_[\w-]{32}$/);
  });
});
