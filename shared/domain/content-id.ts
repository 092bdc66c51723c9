import { createHash } from 'node:crypto';

/** A stable id from the content, so the same record written twice (a retried message) is stored once. */
export function contentId(prefix: string, content: unknown): string {
  return `${prefix}_${createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 22)}`;
}
