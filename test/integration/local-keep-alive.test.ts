import { connect } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { type ApiServer, createApiServer } from '../../infra/local/http-server.ts';
import type { Invoke } from '../../infra/local/lambda.ts';
import { listen } from '../../infra/local/servers.ts';

const route = () => ({ route: { id: 'test/echo' }, routeKey: 'POST /api/echo' });
const invoke: Invoke = async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{}' });
const REQUEST = 'POST /api/echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';

let api: ApiServer | undefined;
afterEach(async () => {
  await api?.shutdown();
  api = undefined;
});

// A browser test failed with "socket hang up" when Playwright sent on a connection left idle for 5 s,
// node:http's default, just as the server closed it.
it('keeps an idle connection open past node:http’s 5 s, and still closes it at once when it stops', async () => {
  api = createApiServer(route, invoke, () => undefined);
  const port = await listen(api.server, 0, '127.0.0.1');
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let closed = false;
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  socket.on('close', () => {
    closed = true;
  });
  const answers = () => received.split('HTTP/1.1 ').slice(1);
  const ask = async (n: number) => {
    socket.write(REQUEST);
    await vi.waitFor(() => expect(answers()).toHaveLength(n), { timeout: 5000 });
  };

  await ask(1);
  await new Promise((resolve) => setTimeout(resolve, 6000));
  expect(closed).toBe(false);
  await ask(2);
  expect(answers().map((a) => a.slice(0, 3))).toEqual(['200', '200']);

  await api.shutdown();
  api = undefined;
  await vi.waitFor(() => expect(closed).toBe(true), { timeout: 2000 });
}, 20_000);
