// `tsx console/scripts/build.ts [outDir]`: the console's production build (made only if its sources
// changed), copied to outDir when one is given. CDK's local bundling runs this at synth.
import { cp } from 'node:fs/promises';
import { ensureConsoleBuild } from '../build.ts';

const { dir, builtInMs } = await ensureConsoleBuild();
const outDir = process.argv[2];
if (outDir) await cp(dir, outDir, { recursive: true, filter: (path) => !path.endsWith('build-inputs.json') });
console.error(builtInMs > 0 ? `console built in ${builtInMs} ms` : 'console build up to date');
