import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../bench/cli.ts';
import { type Scenario, UsageError } from '../../bench/scenario.ts';

const scenario = (name: string): Scenario => ({
  name,
  summary: `the ${name} scenario`,
  flags: { traces: { default: 1000, description: 'traces' } },
  run: () => Promise.reject(new Error('not run here')),
});
const scenarios = [scenario('reads'), scenario('memory')];

describe('the bench command line', () => {
  it('records the reports unless told not to, and takes each scenario its flags', () => {
    expect(parseCommandLine(['--scenario', 'reads', '--traces', '20000'], scenarios)).toMatchObject({
      help: false,
      record: true,
      selections: [{ scenario: { name: 'reads' }, parameters: { traces: 20000 } }],
    });
    expect(parseCommandLine(['--no-record'], scenarios)).toMatchObject({
      record: false,
      selections: [{ parameters: { traces: 1000 } }, { parameters: { traces: 1000 } }],
    });
  });

  it('refuses an unknown scenario, a flag no scenario takes and a value out of range', () => {
    expect(() => parseCommandLine(['--scenario', 'nope'], scenarios)).toThrow(UsageError);
    expect(() => parseCommandLine(['--no-such-flag'], scenarios)).toThrow(UsageError);
    expect(() => parseCommandLine(['--traces', '0'], scenarios)).toThrow(UsageError);
  });
});
