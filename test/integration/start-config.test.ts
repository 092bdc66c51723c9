import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const REPO_ROOT = join(import.meta.dirname, '../..');
/**
 * What `npm start` runs: package.json's start script, `cross-env NAME=value … node <flags> <program>`
 * (cross-env sets the environment on any platform's shell, then runs the rest).
 */
const START = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts.start.split(/\s+/) as string[];
const CROSS_ENV = join(
  REPO_ROOT,
  'node_modules/cross-env',
  (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/cross-env/package.json'), 'utf8')) as { bin: Record<string, string> }).bin['cross-env']!,
);

/** The processes a process started (Linux). */
const childrenOf = (pid: number): number[] => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);

/**
 * `npm start` in a child process with the environment given (none of the start script's own variables
 * inherited from this one); resolves with how it exited and what it wrote. Once it says it started,
 * `started` runs with its API's address and the process id of the start script's first process, then
 * the child is stopped as Ctrl-C in a terminal stops `npm start`: SIGINT to every process of its
 * group, and again through npm's forwarding.
 */
function runService(
  env: Record<string, string>,
  started: (baseUrl: string, startPid: number) => Promise<void> = async () => {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  expect(START[0]).toBe('cross-env');
  const { MALLOC_ARENA_MAX: _inherited, ...inherited } = process.env;
  const child = spawn(process.execPath, [CROSS_ENV, ...START.slice(1)], {
    cwd: REPO_ROOT,
    env: { ...inherited, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  let startedRun: Promise<void> | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const baseUrl = /Agent Observability Service: (\S+)/.exec(stdout)?.[1];
    if (baseUrl && !startedRun) {
      startedRun = started(baseUrl, child.pid!).finally(() => {
        process.kill(-child.pid!, 'SIGINT');
        // npm forwards the SIGINT it got to the script's process too, and cross-env forwards every copy.
        setTimeout(() => child.kill('SIGINT'), 200);
      });
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      if (startedRun) startedRun.then(() => resolve({ code, stdout, stderr }), reject);
      else resolve({ code, stdout, stderr });
    }),
  );
}

it('builds the service and runs the build, without a loader and with glibc arenas capped: its API answers, and Ctrl-C stops it cleanly', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'aos-start-'));
  try {
    const answers: number[] = [];
    let serviceEnvironment: string[] = [];
    const startedAt = Date.now();
    const { code, stdout, stderr } = await runService({ DATA_DIR: dataDir }, async (baseUrl, startPid) => {
      // A handler loaded from the build (the health route), and one that reads the table.
      answers.push((await fetch(`${baseUrl}/health`)).status);
      answers.push((await fetch(`${baseUrl}/agents`)).status);
      // The service is cross-env's child (Linux's /proc names it).
      const [servicePid] = childrenOf(startPid);
      serviceEnvironment = readFileSync(`/proc/${servicePid}/environ`, 'utf8').split('\0');
    });
    expect(START).not.toContain('--import=tsx');
    expect(answers).toEqual([200, 401]);
    // Set before the service's process started, which is when glibc reads it (docs/local-runtime.md).
    expect(serviceEnvironment).toContain('MALLOC_ARENA_MAX=2');
    // What ran was a build: the start marked the one it ran from as in use.
    const builds = join(REPO_ROOT, 'node_modules', '.cache', 'aos-local-service');
    const used = readdirSync(builds).filter((name) => statSync(join(builds, name)).mtimeMs >= startedAt - 1000);
    expect(used.filter((name) => existsSync(join(builds, name, 'infra', 'local', 'main.js'))).length).toBeGreaterThan(0);
    // One Ctrl-C reaches the service more than once (the terminal's copy and forwarded ones): a clean stop, not a forced one.
    expect(stdout).toContain('Stopping: finishing requests');
    expect(stdout).not.toContain('Forced exit.');
    expect(code, stderr).toBe(0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}, 120_000);

it.each([
  [{ RATE_LIMITS: 'nope' }, 'invalid configuration: RATE_LIMITS: is not valid JSON'],
  [{ LOG_LEVEL: 'LOUD' }, 'invalid configuration: LOG_LEVEL must be one of'],
])(
  'a bad setting (%j) fails the start with a message naming it, rather than every request answering 500',
  async (setting, message) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'aos-start-config-'));
    try {
      // Started after all, it is stopped at once, and the test fails on its output.
      const { code, stdout, stderr } = await runService({ DATA_DIR: dataDir, ...setting });
      expect(stdout).not.toMatch(/Agent Observability Service: /);
      expect(code).toBe(1);
      expect(stderr).toContain(message);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  120_000,
);
