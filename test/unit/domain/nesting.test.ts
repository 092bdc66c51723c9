import { describe, expect, it } from 'vitest';
import { leaveOutTooDeep, MAX_INGEST_BODY_DEPTH, TOO_DEEP_IN_BODY } from '#shared/domain/nesting.ts';
import { nestedJsonText } from '../../support/fuzz.ts';

/** How many objects and arrays deep a value nests (the value itself is level 1), counted without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

describe('leaving out what a native ingestion body nests too deep', () => {
  it('keeps a body as deep as the limit whole, and marks what is deeper in its place', () => {
    const kept = JSON.parse(nestedJsonText(MAX_INGEST_BODY_DEPTH, 'leaf'));
    expect(leaveOutTooDeep(structuredClone(kept))).toEqual(kept);

    const deeper = leaveOutTooDeep(JSON.parse(nestedJsonText(MAX_INGEST_BODY_DEPTH + 1, 'leaf')));
    expect(depthOf(deeper)).toBe(MAX_INGEST_BODY_DEPTH);
    expect(JSON.stringify(deeper)).toContain(JSON.stringify(TOO_DEEP_IN_BODY));
    expect(JSON.stringify(deeper)).not.toContain('leaf');
  });

  it('walks a body far deeper than any stack allows, objects and arrays, without recursion', () => {
    const body = JSON.parse(`{"spans":[{"attributes":{"deep":${nestedJsonText(200_000, 1)}},"input":${nestedJsonText(100_000, 'x')}}]}`);
    const bounded = leaveOutTooDeep(body);
    expect(depthOf(bounded)).toBe(MAX_INGEST_BODY_DEPTH);
    expect(() => JSON.stringify(bounded)).not.toThrow();
  });

  it('leaves a key named __proto__ an ordinary key, and anything but objects and arrays as it is', () => {
    const body = JSON.parse(`{"__proto__": ${nestedJsonText(MAX_INGEST_BODY_DEPTH + 5, 1)}}`);
    const bounded = leaveOutTooDeep(body);
    expect(Object.getPrototypeOf(bounded)).toBe(Object.prototype);
    expect(Object.hasOwn(bounded, '__proto__')).toBe(true);
    expect(depthOf(bounded)).toBe(MAX_INGEST_BODY_DEPTH);
    for (const value of ['text', 5, null, true]) expect(leaveOutTooDeep(value)).toBe(value);
  });
});
