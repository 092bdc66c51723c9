import { describe, expect, it } from 'vitest';

describe('the stand-in for the SDK event-stream codec (infra/aws/no-event-streams.ts)', () => {
  it('fails when loaded, naming where to list a function that needs the codec', async () => {
    await expect(import('../../infra/aws/no-event-streams.ts')).rejects.toThrow(/EVENT_STREAM_MODULES \(infra\/aws\/service-function\.ts\)/);
  });
});
