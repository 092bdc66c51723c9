import { parseArgs } from 'node:util';
import { type NumberFlag, type Scenario, UsageError } from './scenario.ts';

export interface Selection {
  scenario: Scenario;
  parameters: Record<string, number>;
}

export type CommandLine =
  | { help: true }
  | {
      help: false;
      selections: Selection[];
      /** Write the reports into docs/benchmarks.md and results/latest.json (`--no-record`: print them only, for a run whose figures must not land). */
      record: boolean;
    };

/** `--scenario <name>` (repeatable; every scenario when absent), `--no-record`, and the scenarios' numeric flags. */
export function parseCommandLine(args: string[], scenarios: readonly Scenario[]): CommandLine {
  const flags = allFlags(scenarios);
  const values = parseFlags(args, [...flags.keys()]);
  if (values.help) return { help: true };
  const names = (values.scenario as string[] | undefined) ?? scenarios.map((s) => s.name);
  const selections = names.map((name) => {
    const scenario = scenarios.find((s) => s.name === name);
    if (!scenario) throw new UsageError(`unknown scenario "${name}"; known: ${scenarios.map((s) => s.name).join(', ')}`);
    const parameters = Object.fromEntries(
      Object.entries(scenario.flags).map(([flag, def]) => [flag, flagValue(flag, def, values[flag] as string | undefined)]),
    );
    return { scenario, parameters };
  });
  return { help: false, selections, record: values['no-record'] !== true };
}

export function usage(scenarios: readonly Scenario[]): string {
  const lines = [
    'npm run bench -- [--scenario <name>]... [--no-record] [--<flag> <n>]...',
    '',
    '  --no-record: print the reports only, leaving docs/benchmarks.md and test/bench/results/latest.json as they are',
    '',
  ];
  for (const s of scenarios) {
    lines.push(`  --scenario ${s.name}: ${s.summary}`);
    for (const [flag, def] of Object.entries(s.flags)) lines.push(`      --${flag.padEnd(20)} ${def.description} (default ${def.default})`);
  }
  return lines.join('\n');
}

function parseFlags(args: string[], numberFlags: string[]): Record<string, string | boolean | string[] | undefined> {
  try {
    return parseArgs({
      args,
      strict: true,
      options: {
        scenario: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
        'no-record': { type: 'boolean' },
        ...Object.fromEntries(numberFlags.map((name) => [name, { type: 'string' as const }])),
      },
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Each flag once, even when several scenarios take it. */
function allFlags(scenarios: readonly Scenario[]): Map<string, NumberFlag> {
  return new Map(scenarios.flatMap((s) => Object.entries(s.flags)));
}

function flagValue(flag: string, def: NumberFlag, text: string | undefined): number {
  if (text === undefined) return def.default;
  const value = Number(text);
  const { min = 1, max = Number.MAX_SAFE_INTEGER } = def;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${flag} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ' up'}, not "${text}"`);
  }
  return value;
}
