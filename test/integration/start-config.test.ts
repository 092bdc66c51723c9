import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

/** `npm start` in a child process with the environment given; resolves with how it exited and what it wrote. */
function runService(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    cwd: join(import.meta.dirname, '../..'),
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    // Started after all: stop it, the test fails on its output.
    if (/Agent Observability Service: /.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

it.each([
  [{ RATE_LIMITS: 'nope' }, 'invalid configuration: RATE_LIMITS: is not valid JSON'],
  [{ LOG_LEVEL: 'LOUD' }, 'invalid configuration: LOG_LEVEL must be one of'],
])(
  'a bad setting (%j) fails the start with a message naming it, rather than every request answering 500',
  async (setting, message) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'aos-start-config-'));
    try {
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
