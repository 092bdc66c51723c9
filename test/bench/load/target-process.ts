import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SentTrace } from '../ingest/traces.ts';
import { BenchFailure } from '../scenario.ts';
import { START_ENV, START_FLAGS } from '../start-flags.ts';
import type { ControlMessage, TargetMessage, TargetOptions } from './protocol.ts';

const TARGET_PROGRAM = fileURLToPath(new URL('./target.ts', import.meta.url));
const STOP_TIMEOUT_MS = 60_000;

export type Ready = Extract<TargetMessage, { type: 'ready' }>;
export type Verified = Extract<TargetMessage, { type: 'verified' }>;

export interface Target {
  ready: Ready;
  /** Waits until the queues are empty, then reads back what was accepted (and what was seeded). */
  verify(accepted: SentTrace[], sampleSize: number, drainTimeoutMs: number): Promise<Verified>;
  stop(): Promise<void>;
}

/** The next message of the target; a `failed` message or the target's exit rejects. */
function nextMessage<T extends TargetMessage['type']>(child: ChildProcess, type: T): Promise<Extract<TargetMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new BenchFailure(`the service under load exited (code ${code}) before answering "${type}"`));
    child.once('exit', onExit);
    child.once('message', (message: TargetMessage) => {
      child.off('exit', onExit);
      if (message.type === type) resolve(message as Extract<TargetMessage, { type: T }>);
      else reject(new BenchFailure(message.type === 'failed' ? message.message : `expected "${type}" from the service under load, got "${message.type}"`));
    });
  });
}

const control = (child: ChildProcess, message: ControlMessage) => child.send(message);

/**
 * Starts the local service in a child process (tsx's loader is inherited through execArgv) and waits
 * until it is seeded. `npm start`'s flags and environment are added, but for its heap limit: the
 * process also holds what it seeds and verifies.
 */
export async function startTarget(options: TargetOptions): Promise<Target> {
  const execArgv = [...process.execArgv, ...START_FLAGS.filter((flag) => !flag.startsWith('--max-old-space-size'))];
  const child = fork(TARGET_PROGRAM, [JSON.stringify(options)], {
    execArgv,
    env: { ...process.env, ...START_ENV },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const ready = await nextMessage(child, 'ready');
    return {
      ready,
      async verify(accepted, sampleSize, drainTimeoutMs) {
        const answer = nextMessage(child, 'verified');
        control(child, { type: 'verify', accepted, sampleSize, drainTimeoutMs });
        return answer;
      },
      async stop() {
        if (child.connected) control(child, { type: 'stop' });
        const timer = setTimeout(() => child.kill(), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      },
    };
  } catch (err) {
    child.kill();
    throw err;
  }
}
