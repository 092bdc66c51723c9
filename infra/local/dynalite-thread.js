// dynalite in a worker thread of its own (see startDynamoDb in dynamodb.ts): its request handling and
// LevelDB work run on another core than the HTTP API, the queue pollers and the handlers. Plain
// JavaScript, so that it loads in a worker whatever runs the main thread (tsx, vitest).
import { parentPort, workerData } from 'node:worker_threads';
import { AbstractIterator, AbstractKeyIterator, AbstractValueIterator } from 'abstract-level';
import { ClassicLevel } from 'classic-level';
import dynalite from 'dynalite';

// LevelDB keeps up to max_open_files - 10 table files open, and on 64-bit systems maps each open table
// file into memory whole (up to 1,000 of them): their pages count in the process's RSS and grow with
// the data, up to gigabytes (after 400,000 spans, 220 MB of a 715 MB RSS were mapped table files).
// dynalite opens its store with LevelDB's default of 1,000 and no way to set it, so it is set here.
// 74 is LevelDB's least (64 tables, 2 MB each): at most about 128 MB mapped, whatever the data.
const MAX_OPEN_FILES = 74;
const openStore = ClassicLevel.prototype._open;
ClassicLevel.prototype._open = function (options) {
  return openStore.call(this, { ...options, maxOpenFiles: options?.maxOpenFiles ?? MAX_OPEN_FILES });
};

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
