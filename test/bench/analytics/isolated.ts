import { fork } from 'node:child_process';
import { totalmem } from 'node:os';
import { exitWithParent } from '../child.ts';
import { BenchFailure, type ScenarioResult } from '../scenario.ts';
import { START_ENV, START_FLAGS } from '../start-flags.ts';

type Flags = Record<string, number>;
type Run<Input, Output> = (input: Input, progress: (line: string) => void) => Promise<Output>;
type ChildMessage<Output> = { progress: string } | { result: Output } | { failure: string };

/** dynalite keeps every item, and a copy per index, in the heap: a million traces need far more than Node's default. */
const HEAP_MB = Math.floor((totalmem() / 2 ** 20) * 0.75);

/**
 * Runs a scenario in a child process of its own (`entry` calls `answerParent`). The local runtime's
 * handlers keep the endpoints of the first runtime started in a process, so a service started after
 * another scenario's has stopped would send its handlers to a dynalite that is gone.
 */
export function runIsolated<Input = Flags, Output = ScenarioResult>(entry: URL, input: Input, progress: (line: string) => void): Promise<Output> {
  return new Promise((resolve, reject) => {
    // The parent's execArgv carries tsx's loader, so the child can run TypeScript too. The service runs
    // with `npm start`'s flags, but for the heap: the scenario seeds its data in the same process (the
    // last --max-old-space-size given is the one V8 takes).
    const execArgv = [...process.execArgv, ...START_FLAGS, `--max-old-space-size=${HEAP_MB}`];
    const child = fork(entry, [JSON.stringify(input)], { execArgv, env: { ...process.env, ...START_ENV } });
    let outcome: Exclude<ChildMessage<Output>, { progress: string }> | undefined;
    child.on('message', (message: ChildMessage<Output>) => {
      if ('progress' in message) progress(message.progress);
      else outcome = message;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (outcome && 'result' in outcome) resolve(outcome.result);
      else if (outcome) reject(new BenchFailure(outcome.failure));
      else reject(new Error(`the scenario's process exited with code ${code} before giving a result`));
    });
  });
}

/** The child's side: runs the scenario with the parent's flags (or other input), sends it the progress and the result, then exits. */
export function answerParent<Input = Flags, Output = ScenarioResult>(run: Run<Input, Output>): void {
  exitWithParent();
  const send = (message: ChildMessage<Output>) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
  const input = JSON.parse(process.argv[2]!) as Input;
  run(input, (line) => void send({ progress: line }))
    .then(
      (result) => send({ result }),
      (err: unknown) => {
        if (err instanceof BenchFailure) return send({ failure: err.message });
        throw err;
      },
    )
    // Exits explicitly: idle keep-alive sockets must not hold the process open.
    .then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err instanceof Error ? (err.stack ?? err.message) : err);
        process.exit(1);
      },
    );
}
