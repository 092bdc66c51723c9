/** Native JSON ingestion: what every kind shares. Each kind's conversion is in `native-<kind>.ts`, so a function builds only its own kind's schema. */
import * as z from 'zod/mini';
import { describeIssue } from '../../schemas/messages.ts';
import type { AttributeValue } from '../spans/model.ts';

export interface ItemError {
  index: number;
  message: string;
}

export interface Parsed<T> {
  items: T[];
  errors: ItemError[];
}

/** Validates each item on its own: the good ones go on, each bad one is reported with its index. */
export function parseEach<S extends z.ZodMiniType, T>(raw: readonly unknown[], schema: S, convert: (v: z.infer<S>, index: number) => T): Parsed<T> {
  const items: T[] = [];
  const errors: ItemError[] = [];
  raw.forEach((value, index) => {
    const result = z.safeParse(schema, value);
    if (result.success) {
      items.push(convert(result.data, index));
      return;
    }
    const message = result.error.issues
      .slice(0, 3)
      .map((issue) => describeIssue(issue, 'item'))
      .join('; ');
    errors.push({ index, message });
  });
  return { items, errors };
}

export const asAttributes = (value: Record<string, unknown> | undefined) => (value ?? {}) as Record<string, AttributeValue>;
