import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import type { UserRecord } from '#shared/domain/accounts/ports.ts';
import { noticeSignInLockout } from '#shared/domain/accounts/sign-in-backoff.ts';
import type { OutboundMessage } from '#shared/domain/notifications/messages.ts';

it("gives a terminal line that asks for a new password for the owner's address exactly, an apostrophe in it too", async () => {
  const sent: OutboundMessage[] = [];
  const user = { id: 'usr_1', email: "o'brien@example.com", firstName: 'Pat', isActive: true, passwordHash: 'h' } as UserRecord;
  await noticeSignInLockout(
    {
      kind: 'sign-in-lockout',
      email: user.email,
      failures: 5,
      occurrenceKey: String(Date.parse('2026-11-30T08:00:00Z')),
      lockedUntil: '2026-11-30T08:01:00.000Z',
    },
    {
      users: { findByEmail: async () => user },
      publicAppUrl: 'http://127.0.0.1:3000',
      mailer: { sendEmail: async (message) => void sent.push(message) },
      sms: { sendSms: async () => undefined },
      deliveries: { wasDelivered: async () => false, markDelivered: async () => undefined },
      clock: { now: () => new Date('2026-11-30T08:00:00Z') },
    },
  );
  const text = String((sent[0] as { text: string }).text);
  const curl = text.split('\n').find((line: string) => line.startsWith('curl '))!;
  // The shell's own reading of the line's last word: the JSON the API is sent.
  const body = execFileSync('bash', ['-c', `printf %s ${curl.slice(curl.lastIndexOf(' -d ') + 4)}`], { encoding: 'utf8' });
  expect(JSON.parse(body)).toEqual({ email: "o'brien@example.com" });
  expect(text).toContain('http://127.0.0.1:3000/forgot-password\n');
});
