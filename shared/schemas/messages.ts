import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * zod/mini has no messages of its own (every issue reads "Invalid input"): this gives it the English
 * ones classic zod has (the English locale alone, not all of `z.locales`). Imported by the modules
 * that turn issues into text a client or an operator reads, which `describeIssue` writes.
 */
z.config(en());

/**
 * One issue as a client reads it: `field: message`, and "is required" for a missing field; `unnamed`
 * names an issue about the whole input.
 */
export function describeIssue(issue: z.core.$ZodIssue, unnamed?: string): string {
  const field = issue.path.map(String).join('.') || unnamed;
  const message = /received undefined$/.test(issue.message) ? 'is required' : issue.message;
  return field ? `${field}: ${message}` : message;
}
