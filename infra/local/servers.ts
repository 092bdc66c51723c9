import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts listening; resolves with the bound port (useful with port 0), rejects with e.g. EADDRINUSE. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops listening and resolves once the open connections have ended; a server that never listened is left alone. */
export function close(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
}

/** `http://host:port`, with IPv6 literals bracketed and wildcard addresses replaced by loopback. */
export function origin(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
