import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { foldText, signatureOf, wordsOfFolded } from '#shared/domain/lake/text.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

it('signs texts without holding anything of them: neither the texts nor their words', () => {
  const before = heapUsed();
  // 1,000 texts, each of 100 words of 20 letters (long enough to be slices of their text) and one word of 64 KB.
  for (let t = 0; t < 1000; t++) {
    const words = Array.from({ length: 100 }, (_, w) => `w${t.toString(36).padStart(4, '0')}${w.toString(36).padStart(4, '0')}${'x'.repeat(11)}`);
    const text = foldText(`${words.join(' ')} ${'z'.repeat(64 * 1024)}${t}`);
    signatureOf(wordsOfFolded(text));
  }
  // Remembered in a map (removed on 2026-12-01), the 100,000 words took 14 MB; kept as slices of their texts, 66 MB more.
  expect((heapUsed() - before) / 1024 / 1024).toBeLessThan(4);
});
