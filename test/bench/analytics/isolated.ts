import { fork } from 'node:child_process';
import { totalmem } from 'node:os';
import { exitWithParent } from '../child.ts';
import { BenchFailure, type ScenarioResult } from '../scenario.ts';

type Run = (flags: Record<string, number>, progress: (line: string) => void) => Promise<ScenarioResult>;
type ChildMessage = { progress: string } | { result: ScenarioResult } | { failure: string };

/** dynalite keeps every item, and a copy per index, in the heap: a million traces need far more than Node's default. */
const HEAP_MB = Math.floor((totalmem() / 2 ** 20) * 0.75);

/**
 * Runs a scenario in a child process of its own (`entry` calls `answerParent`). The local runtime's
 * handlers keep the endpoints of the first runtime started in a process, so a service started after
 * another scenario's has stopped would send its handlers to a dynalite that is gone.
 */
export function runIsolated(entry: URL, flags: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  return new Promise((resolve, reject) => {
    // The parent's execArgv carries tsx's loader, so the child can run TypeScript too.
    const child = fork(entry, [JSON.stringify(flags)], { execArgv: [...process.execArgv, `--max-old-space-size=${HEAP_MB}`] });
    let outcome: Exclude<ChildMessage, { progress: string }> | undefined;
    child.on('message', (message: ChildMessage) => {
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

/** The child's side: runs the scenario with the parent's flags, sends it the progress and the result, then exits. */
export function answerParent(run: Run): void {
  exitWithParent();
  const send = (message: ChildMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
  const flags = JSON.parse(process.argv[2]!) as Record<string, number>;
  run(flags, (line) => void send({ progress: line }))
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
