import { describe, expect, it } from 'vitest';

describe('the stand-in for the SDK event-stream codec (infra/aws/no-event-streams.ts)', () => {
  it('fails when loaded, naming the alias to take out for a client that needs the codec', async () => {
    await expect(import('../../infra/aws/no-event-streams.ts')).rejects.toThrow(/out of BUNDLING\.alias \(infra\/aws\/service-function\.ts\)/);
  });
});
