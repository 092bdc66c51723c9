// dynalite in a worker thread of its own (see startDynamoDb in dynamodb.ts): its request handling and
// LevelDB work run on another core than the HTTP API, the queue pollers and the handlers. Plain
// JavaScript, so that it loads in a worker whatever runs the main thread (tsx, vitest).
import { parentPort, workerData } from 'node:worker_threads';
import { AbstractIterator, AbstractKeyIterator, AbstractValueIterator } from 'abstract-level';
import { ClassicLevel } from 'classic-level';
import dynalite from 'dynalite';

// dynalite 4 reads a Query's or Scan's items through a stream over a level iterator, and ends it with
// `iterator.return()` when it has them all or stops early. abstract-level 3's iterators (level 10,
// which dynalite 4 depends on) have no `return`, only `close`, so dynalite skipped the call and every
// Query and Scan left its LevelDB iterator open until the store closed. An open LevelDB iterator pins
// the table files it started on, and the version of the table that names them: compacted files were
// never deleted, and the process held each iterator's buffers. Measured over 50,000 spans: 666 table
// files (1.2 GB) where 41 (90 MB) were live, and the service's RSS grew past 3.8 GB. Closing them here
// is what `return` means for an async iterator: stop and release.
for (const Iterator of [AbstractIterator, AbstractKeyIterator, AbstractValueIterator]) {
  Iterator.prototype.return ??= async function () {
    await this.close();
    return { done: true, value: undefined };
  };
}

// dynalite opens its LevelDB with no options of its own but the values' encoding (`new Level(path,
// { valueEncoding })`), so the options it should open with (LEVELDB_BLOCK_BYTES in dynamodb.ts) are
// added to every open in this thread; an option dynalite or abstract-level gives would win.
const openLevel = ClassicLevel.prototype._open;
ClassicLevel.prototype._open = function (options) {
  return openLevel.call(this, { ...workerData.levelOptions, ...options });
};

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
