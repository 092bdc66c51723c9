import { describe, expect, it } from 'vitest';
import { truncateText } from '#shared/domain/ingest/messages.ts';
import { parseWellFormedJson, textPrefix, wellFormed } from '#shared/domain/well-formed.ts';

describe('well-formed text', () => {
  it('replaces lone surrogates in every string of parsed JSON, keys included, and keeps pairs', () => {
    const parsed = parseWellFormedJson('{"model":"m\\ud800","tags":["a\\udc00b","\\ud83d\\ude00"],"k\\ud800":{"deep":["\\udbff"]}}');
    expect(parsed).toEqual({ model: 'm\ufffd', tags: ['a\ufffdb', '😀'], 'k\ufffd': { deep: ['\ufffd'] } });
    expect(JSON.stringify(parsed)).not.toMatch(/\\u[dD][89a-fA-F]/);
  });

  it('walks any depth without recursion, and leaves bytes and other values alone', () => {
    let deep: unknown = ['\ud800'];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(() => wellFormed(deep)).not.toThrow();
    let inner = deep;
    while (Array.isArray(inner) && Array.isArray(inner[0])) inner = inner[0];
    expect(inner).toEqual(['\ufffd']);
    const bytes = new Uint8Array([0xed, 0xa0, 0x80]);
    expect(wellFormed({ bytes, n: 1, b: true, nothing: null })).toEqual({ bytes, n: 1, b: true, nothing: null });
    expect(wellFormed('\udc00x')).toBe('\ufffdx');
  });

  it('cuts text at a count of code points, so a cut emoji leaves no lone half', () => {
    expect(textPrefix('ab😀c', 2)).toBe('ab');
    expect(textPrefix('ab😀c', 3)).toBe('ab😀');
    expect(textPrefix('ab😀c', 4)).toBe('ab😀c');
    const cut = truncateText('😀'.repeat(5), 3)!;
    expect(cut.isWellFormed()).toBe(true);
    expect(cut).toBe('😀😀😀…[truncated 2 characters]');
    expect(truncateText('😀'.repeat(5), 5)).toBe('😀'.repeat(5));
  });
});
