// dynalite in a worker thread of its own (see startDynamoDb in dynamodb.ts): its request handling and
// LevelDB work run on another core than the HTTP API, the queue pollers and the handlers. Plain
// JavaScript, so that it loads in a worker whatever runs the main thread (tsx, vitest).
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';

const server = dynalite(workerData.options);
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.once('message', () => {
  server.closeAllConnections();
  // dynalite's close also closes LevelDB, flushing it to disk.
  server.close((err) => {
    parentPort.postMessage({ closed: true, error: err ? String(err.stack ?? err) : undefined });
    parentPort.close();
  });
});
