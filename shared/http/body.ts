import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ValidationError } from '../domain/errors.ts';
import { parseWellFormedJson, textPrefix } from '../domain/well-formed.ts';

const megabytes = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`);

/**
 * The request body as bytes: base64 undone, gzip undone (Content-Encoding: gzip), refused beyond
 * `maxBytes` (decompressed, so a small gzip bomb cannot exhaust memory).
 */
export function bodyBytes(event: APIGatewayProxyEventV2, maxBytes: number): Buffer | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  const tooLarge = () => new ValidationError(`The request body exceeds ${megabytes(maxBytes)}`);
  const encoding = (event.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') {
    if (bytes.length > maxBytes) throw tooLarge();
    return bytes;
  }
  if (encoding !== 'gzip') throw new ValidationError(`Content-Encoding ${encoding} is not supported; use gzip or none`);
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (err) {
    if (err instanceof RangeError) throw tooLarge();
    throw new ValidationError('The body is not valid gzip');
  }
}

export function jsonBody(event: APIGatewayProxyEventV2, maxBytes: number): unknown {
  const bytes = bodyBytes(event, maxBytes);
  if (!bytes) return undefined;
  const type = event.headers['content-type'];
  if (type !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(type.trim())) {
    throw new ValidationError(`Content-Type must be application/json (got ${textPrefix(type, 60)})`);
  }
  try {
    return parseWellFormedJson(bytes.toString('utf8'));
  } catch (err) {
    const detail = err instanceof SyntaxError ? `: ${textPrefix(err.message, 120)}` : '';
    throw new ValidationError(`Malformed JSON body${detail}`);
  }
}
