import * as z from 'zod/mini';
import { isStorableNumber } from '../domain/spans/model.ts';

/**
 * What the store can hold of a request's values: DynamoDB takes numbers of 38 digits from 1e-130 to
 * 1e126 in magnitude (and zero), the SDK reads back no number past ±2^53 as a JavaScript number, and
 * maps and lists nest at most 32 deep in an item, of which a request's body is one part.
 */
export const NUMBER_RANGE_MESSAGE = 'must be 0 or of magnitude 1e-130 to 2^53';
/** How deep a request body may nest: it is kept a few levels down an item. */
export const MAX_BODY_NESTING = 24;
/** How deep a free-form value (an experiment variant's config) may nest. */
export const MAX_FREE_FORM_NESTING = 16;

export interface UnstorablePart {
  path: PropertyKey[];
  message: string;
}

/** The first part of `value` the store cannot hold: a number out of range, or nesting past `maxDepth`. */
export function unstorablePart(value: unknown, maxDepth: number, path: PropertyKey[] = []): UnstorablePart | undefined {
  if (typeof value === 'number') return isStorableNumber(value) ? undefined : { path, message: NUMBER_RANGE_MESSAGE };
  if (value === null || typeof value !== 'object') return undefined;
  if (maxDepth === 0) return { path, message: `must not nest deeper than this (at most ${path.length} levels)` };
  const entries: [PropertyKey, unknown][] = Array.isArray(value) ? [...value.entries()] : Object.entries(value);
  for (const [key, child] of entries) {
    const found = unstorablePart(child, maxDepth - 1, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** A number the store holds, within the field's own domain `min`–`max` (above `min`, when it is excluded). */
export const storableNumber = (min: number, max: number, { minIncluded = true } = {}) =>
  z.number().check(z.refine(isStorableNumber, NUMBER_RANGE_MESSAGE), minIncluded ? z.gte(min) : z.gt(min), z.lte(max));

const issuePath = (path: PropertyKey[]) => path.map((p) => (typeof p === 'symbol' ? String(p) : p));
const PROTO_KEY_MESSAGE = "is a key name the service cannot keep (it names an object's prototype in JavaScript); use another name";

/** The path to the first key named `__proto__` in `value` (JSON allows it), at most `maxDepth` levels down. */
function protoKeyPath(value: unknown, maxDepth: number, path: PropertyKey[] = []): PropertyKey[] | undefined {
  if (value === null || typeof value !== 'object' || maxDepth === 0) return undefined;
  if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) return [...path, '__proto__'];
  const entries: [PropertyKey, unknown][] = Array.isArray(value) ? [...value.entries()] : Object.entries(value);
  for (const [key, child] of entries) {
    const found = protoKeyPath(child, maxDepth - 1, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * A free-form JSON object (e.g. an experiment variant's config) whose every number and nesting the
 * store holds. A key named `__proto__` is refused, at any depth: zod leaves it out of the record it
 * builds and the DynamoDB marshaller out of the item (assigned, it would set a prototype), so it was
 * lost without a word.
 */
export const storableObject = z.pipe(
  z.transform((value: unknown, ctx) => {
    const path = protoKeyPath(value, MAX_FREE_FORM_NESTING + 1);
    if (path) ctx.issues.push({ code: 'custom', message: PROTO_KEY_MESSAGE, path: issuePath(path), input: value });
    return value;
  }),
  z.record(z.string(), z.unknown()).check(
    z.superRefine((value: Record<string, unknown>, ctx) => {
      const found = unstorablePart(value, MAX_FREE_FORM_NESTING);
      if (found) ctx.addIssue({ code: 'custom', message: found.message, path: issuePath(found.path), input: value });
    }),
  ),
);
