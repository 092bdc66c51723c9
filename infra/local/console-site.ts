import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { API_BASE_PATH } from '#shared/catalog.ts';
import { consoleSecurityHeaders } from '../../console/security-headers.ts';
import type { HttpResponse } from './api-gateway.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Whether a request is the console's (everything outside the API's base path). */
export const isConsoleRequest = (rawPath: string): boolean => rawPath !== API_BASE_PATH && !rawPath.startsWith(`${API_BASE_PATH}/`);

/**
 * The console's files, as CloudFront serves them from S3 on AWS: a file of the build by its path
 * (hashed assets cached for good, the rest revalidated), any other page path the app itself
 * (`index.html`, whose router shows the page), and the same security headers (whose CSP lets the
 * page call the hosted sign-ins' token endpoints, `signInOrigins`).
 */
export function createConsoleSite(distDir: string, signInOrigins: readonly string[] = []) {
  const root = normalize(distDir + sep);
  const securityHeaders = consoleSecurityHeaders(signInOrigins);

  async function file(path: string): Promise<Buffer | undefined> {
    const full = normalize(join(root, path));
    if (!full.startsWith(root)) return undefined;
    try {
      if (!(await stat(full)).isFile()) return undefined;
      return await readFile(full);
    } catch {
      return undefined;
    }
  }

  return async function serve(req: IncomingMessage, rawPath: string): Promise<HttpResponse> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return { statusCode: 405, headers: { allow: 'GET, HEAD', ...securityHeaders }, body: Buffer.alloc(0) };
    }
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      path = rawPath;
    }
    const asset = path !== '/' ? await file(path) : undefined;
    if (asset) {
      const immutable = path.startsWith('/assets/');
      return {
        statusCode: 200,
        headers: {
          'content-type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
          'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
          ...securityHeaders,
        },
        body: asset,
      };
    }
    // A missing hashed asset is a stale page asking for an old build: a 404, not the app.
    const index = path.startsWith('/assets/') ? undefined : await file('index.html');
    if (!index) {
      return { statusCode: 404, headers: { 'content-type': 'text/plain; charset=utf-8', ...securityHeaders }, body: Buffer.from('Not found') };
    }
    return {
      statusCode: 200,
      headers: { 'content-type': CONTENT_TYPES['.html']!, 'cache-control': 'no-cache', ...securityHeaders },
      body: index,
    };
  };
}
export type ConsoleSite = ReturnType<typeof createConsoleSite>;
