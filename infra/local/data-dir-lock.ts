import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DataDirInUseError extends Error {}

/**
 * Claims the data directory for this process: LevelDB admits one process per database, and dynalite
 * reports a second one only by crashing on its first request. Resolves with the release function.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, 'runtime.pid');
  await mkdir(dataDir, { recursive: true });
  for (;;) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (holder > 0 && isRunning(holder)) {
      throw new DataDirInUseError(`${dataDir} is in use by process ${holder}; stop it, or use another DATA_DIR`);
    }
    await rm(file, { force: true }); // left behind by a process that is gone
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
