import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { gunzipSync } from 'node:zlib';
import { ValidationError } from '../domain/errors.ts';

/** Largest decompressed body accepted, so a small gzip bomb cannot exhaust memory. */
export const MAX_DECODED_BODY_BYTES = 6 * 1024 * 1024;

/** The request body as bytes: base64 undone, gzip undone (Content-Encoding: gzip). */
export function bodyBytes(event: APIGatewayProxyEventV2): Buffer | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  const encoding = (event.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return bytes;
  if (encoding !== 'gzip') throw new ValidationError(`Content-Encoding ${encoding} is not supported; use gzip or none`);
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_DECODED_BODY_BYTES });
  } catch {
    throw new ValidationError('The body is not valid gzip, or decompresses beyond 6 MB');
  }
}

export function jsonBody(event: APIGatewayProxyEventV2): unknown {
  const bytes = bodyBytes(event);
  if (!bytes) return undefined;
  const type = event.headers['content-type'];
  if (type !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(type.trim())) {
    throw new ValidationError(`Content-Type must be application/json (got ${type.slice(0, 60)})`);
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    const detail = err instanceof SyntaxError ? `: ${err.message.slice(0, 120)}` : '';
    throw new ValidationError(`Malformed JSON body${detail}`);
  }
}
