import { describe, expect, it } from 'vitest';
import { inGatheredTurn } from '#shared/store/turns.ts';

describe('gathered turns', () => {
  it('does the work arriving while a turn is taken in one go, and every caller gets the outcome of its go', async () => {
    const runs: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const work = async (items: string[]) => {
      runs.push(items);
      if (runs.length === 1) await held;
      return items.join('+');
    };
    const first = inGatheredTurn('k', 'a', work);
    const same = inGatheredTurn('k', 'b', work);
    await Promise.resolve();
    const later = [inGatheredTurn('k', 'c', work), inGatheredTurn('k', 'd', work)];
    const elsewhere = inGatheredTurn('other', 'e', work);
    release();
    expect(await Promise.all([first, same, ...later, elsewhere])).toEqual(['a+b', 'a+b', 'c+d', 'c+d', 'e']);
    expect(runs).toEqual([['a', 'b'], ['e'], ['c', 'd']]);
  });

  it('fails every caller of a failed go, and the next go still runs', async () => {
    const failing = inGatheredTurn('f', 1, async () => {
      throw new Error('no');
    });
    const alongside = inGatheredTurn('f', 2, async () => 'unused');
    await expect(failing).rejects.toThrow('no');
    await expect(alongside).rejects.toThrow('no');
    expect(await inGatheredTurn('f', 3, async (items) => items)).toEqual([3]);
  });
});
