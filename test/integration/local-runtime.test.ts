import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DynamoDBClient, GetItemCommand, ListTablesCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, ScheduledEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Catalog, queueUrlEnv } from '#shared/catalog.ts';
import { createTableInput } from '#shared/store/table.ts';
import { createActiveTable, incrementalSweeper, startDynamoDb } from '../../infra/local/dynamodb.ts';
import { startLocalService } from '../../infra/local/runtime.ts';
import { queueCounts } from '../../infra/local/sqs.ts';
import { startTestService, type TestService } from '../support/service.ts';

const quiet = () => {};

describe('the service catalog', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service?.stop());

  it('answers GET /api/health', async () => {
    const res = await service.api('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok' } });
  });

  it('answers an unknown path, and a known path with another method, with the 404 envelope', async () => {
    for (const [method, path] of [
      ['GET', '/no/such/thing'],
      ['DELETE', '/health'],
    ] as const) {
      const res = await service.api(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
  });

  it.each([
    ['headers past the limit', `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['a malformed request line', 'NOT HTTP AT ALL\r\n\r\n', 400],
  ])('answers %s with the envelope and the headers of every API answer', async (_, request, status) => {
    const { hostname, port } = new URL(service.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(port), hostname, () => socket.write(request));
      socket
        .on('data', (chunk: Buffer) => chunks.push(chunk))
        .on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
        .on('error', reject);
    });
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toMatch(/\r\ncache-control: no-store\r\n/i);
    expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    expect(JSON.parse(body!)).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
  });

  it('answers CORS preflight requests itself', async () => {
    const res = await service.api('OPTIONS', '/keys', {
      headers: { origin: 'https://dashboard.example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'content-encoding', 'x-api-key']),
    );
  });

  it('invokes handlers with the sample events', async () => {
    const sample = async (name: string) => JSON.parse(await readFile(new URL(`../../events/${name}`, import.meta.url), 'utf8'));
    expect(await service.invoke('http', 'system/health', await sample('http/health.json'))).toMatchObject({ statusCode: 200 });
    expect(await service.invoke('worker', 'notify', await sample('sqs/notify.json'))).toEqual({ batchItemFailures: [] });
    expect((await service.readOutbox()).map((m) => m.to).sort()).toEqual(['+15555550123', 'ada@example.com']);
  });
});

/** Test handlers, plugged in through the catalog and loadModule options. */
const echo = async (event: APIGatewayProxyEventV2) => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(event),
});
let consume: (event: SQSEvent) => Promise<unknown>;
let slowRequestStarted: () => void = () => {};
const jobEvents: ScheduledEvent[] = [];
const modules: Record<string, { handler: (event: any) => Promise<unknown> }> = {
  'functions/http/test/echo.ts': { handler: echo },
  'functions/http/test/not-found.ts': { handler: echo },
  'functions/http/test/bytes.ts': {
    handler: async () => ({
      statusCode: 201,
      headers: { 'content-type': 'application/octet-stream', 'x-one': 1 },
      multiValueHeaders: { 'x-many': ['a', 'b'] },
      cookies: ['a=1; Path=/', 'b=2'],
      body: Buffer.from([0, 1, 254, 255]).toString('base64'),
      isBase64Encoded: true,
    }),
  },
  'functions/http/test/plain.ts': { handler: async () => 'just text' },
  'functions/http/test/slow.ts': {
    handler: async () => {
      slowRequestStarted();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { statusCode: 200, body: 'done' };
    },
  },
  'functions/http/test/boom.ts': {
    handler: async () => {
      throw new Error('kaboom');
    },
  },
  'functions/workers/test-consumer.ts': { handler: (event: SQSEvent) => consume(event) },
  'functions/jobs/tick.ts': {
    handler: async (event: ScheduledEvent) => {
      jobEvents.push(event);
    },
  },
};
const loadModule = async (modulePath: string) => {
  const mod = modules[modulePath];
  if (!mod) throw new Error(`no test module ${modulePath}`);
  return mod;
};

const route = (id: string, method: 'GET' | 'POST', path: string) => ({ id, method, path, auth: 'public', tier: 'standard' }) as const;
const testCatalog: Catalog = {
  routes: [
    route('test/echo', 'GET', '/things/{id}'),
    route('test/echo', 'GET', '/things/special'),
    route('test/echo', 'POST', '/things/{id}/blobs'),
    route('test/bytes', 'GET', '/bytes'),
    route('test/plain', 'GET', '/plain'),
    route('test/boom', 'GET', '/boom'),
    route('test/slow', 'GET', '/slow'),
  ],
  fallbackRoute: { id: 'test/not-found', auth: 'public', tier: 'standard' },
  queues: [{ id: 'work', consumer: 'test-consumer', batchSize: 10, visibilityTimeoutSeconds: 1, maxReceiveCount: 2 }],
  schedules: [{ id: 'tick', job: 'tick', everyMinutes: 60 }],
};
const emptyCatalog: Catalog = { ...testCatalog, routes: [], queues: [], schedules: [] };

describe('a runtime with test handlers', () => {
  let service: TestService;
  const logged: string[] = [];
  beforeAll(async () => {
    // The background sweep off: "sweeps expired items" counts what its own sweep removes ('the TTL sweep' below tests the background one).
    service = await startTestService({ catalog: testCatalog, loadModule, log: (line) => logged.push(line), ttlSweepEveryMs: false });
  });
  afterAll(() => service?.stop());

  describe('API Gateway events', () => {
    const eventOf = (res: { body: unknown }) => res.body as APIGatewayProxyEventV2;

    it('carries route key, path parameters, query string, headers and cookies', async () => {
      const res = await service.api('GET', '/things/a%20b?x=1&x=2&y=hello%20world', {
        headers: { 'X-Custom': 'Yes', cookie: 'a=1; b=2', origin: 'https://dashboard.example.com' },
      });
      const event = eventOf(res);
      expect(event).toMatchObject({
        version: '2.0',
        routeKey: 'GET /api/things/{id}',
        rawPath: '/api/things/a%20b',
        rawQueryString: 'x=1&x=2&y=hello%20world',
        queryStringParameters: { x: '1,2', y: 'hello world' },
        pathParameters: { id: 'a b' },
        cookies: ['a=1', 'b=2'],
        isBase64Encoded: false,
        requestContext: {
          routeKey: 'GET /api/things/{id}',
          stage: '$default',
          http: { method: 'GET', path: '/api/things/a%20b', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' },
        },
      });
      expect(event.headers['x-custom']).toBe('Yes');
      expect(event.headers).not.toHaveProperty('cookie');
      expect(event.body).toBeUndefined();
      expect(event.requestContext.timeEpoch).toBeCloseTo(Date.now(), -4);
      expect(res.headers.get('apigw-requestid')).toBe(event.requestContext.requestId);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toContain('x-ratelimit-remaining');
    });

    it('prefers literal path segments over parameters, and sends everything else to the fallback route', async () => {
      const special = eventOf(await service.api('GET', '/things/special'));
      expect(special.routeKey).toBe('GET /api/things/special');
      expect(special.pathParameters).toBeUndefined();
      for (const [method, path] of [
        ['DELETE', '/things/1'],
        ['GET', '/things'],
        ['GET', '/things/1/extra'],
      ] as const) {
        expect(eventOf(await service.api(method, path)).routeKey, `${method} ${path}`).toBe('$default');
      }
    });

    it('passes text bodies as text and binary or content-encoded ones as base64', async () => {
      const json = eventOf(await service.api('POST', '/things/1/blobs', { body: { a: 1 } }));
      expect(json).toMatchObject({ body: '{"a":1}', isBase64Encoded: false, pathParameters: { id: '1' } });

      const bytes = Buffer.from([0, 1, 2, 255]);
      const binary = eventOf(await service.api('POST', '/things/1/blobs', { rawBody: bytes, headers: { 'content-type': 'application/x-protobuf' } }));
      expect(binary).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });

      const gzipped = gzipSync('{"a":1}');
      const encoded = eventOf(
        await service.api('POST', '/things/1/blobs', {
          rawBody: gzipped,
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        }),
      );
      expect(encoded).toMatchObject({ body: gzipped.toString('base64'), isBase64Encoded: true });
    });

    it('refuses bodies over 10 MB with 413', async () => {
      const res = await service.api('POST', '/things/1/blobs', {
        rawBody: new Uint8Array(10 * 1024 * 1024 + 1),
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: 'Request body exceeds 10 MB' } });
    });
  });

  describe('handler results', () => {
    it('writes status, headers, multi-value headers, cookies and base64 bodies', async () => {
      const res = await fetch(`${service.baseUrl}/bytes`);
      expect(res.status).toBe(201);
      expect(res.headers.get('x-one')).toBe('1');
      expect(res.headers.get('x-many')).toBe('a, b');
      expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(Buffer.from([0, 1, 254, 255]));
    });

    it('sends a string result as a 200 JSON response', async () => {
      const res = await fetch(`${service.baseUrl}/plain`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text()).toBe('just text');
    });

    it('answers a handler that throws with the 500 envelope and logs the error only', async () => {
      const res = await service.api('GET', '/boom');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
      expect(logged.some((line) => line.includes('kaboom'))).toBe(true);
    });
  });

  describe('queues', () => {
    let sqs: SQSClient;
    beforeAll(() => {
      sqs = new SQSClient({}); // after the runtime has set AWS_ENDPOINT_URL_SQS
    });
    const queueUrl = () => process.env[queueUrlEnv('work')]!;
    let deliveries: SQSRecord[];
    beforeEach(() => {
      deliveries = [];
    });
    const deliveredBodies = () => deliveries.map((r) => `${r.body}#${r.attributes.ApproximateReceiveCount}`).sort();
    const send = (entries: SendMessageBatchRequestEntry[]) => sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: entries }));

    /** Receives and deletes what is in the queue's dead-letter queue. */
    async function takeDeadLetters(): Promise<string[]> {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl(), AttributeNames: ['RedrivePolicy'] }));
      const dlqName = JSON.parse(Attributes!.RedrivePolicy!).deadLetterTargetArn.split(':').pop();
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: dlqName }));
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      for (const m of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
      return Messages.map((m) => m.Body!);
    }

    it('deletes what the consumer handled, redelivers what it reported failed, then dead-letters it', async () => {
      consume = async (event) => {
        deliveries.push(...event.Records);
        return { batchItemFailures: event.Records.filter((r) => r.body === 'bad').map((r) => ({ itemIdentifier: r.messageId })) };
      };
      await send([
        { Id: '1', MessageBody: 'good', MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' } } },
        { Id: '2', MessageBody: 'bad' },
      ]);
      await service.drainQueues();

      expect(deliveredBodies()).toEqual(['bad#1', 'bad#2', 'good#1']);
      const good = deliveries.find((r) => r.body === 'good')!;
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl(), AttributeNames: ['QueueArn'] }));
      expect(good).toMatchObject({
        eventSource: 'aws:sqs',
        eventSourceARN: Attributes!.QueueArn,
        awsRegion: 'us-east-1',
        md5OfBody: createHash('md5').update('good').digest('hex'),
        messageAttributes: { kind: { dataType: 'String', stringValue: 'test', stringListValues: [], binaryListValues: [] } },
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: expect.any(String) },
      });
      expect(await takeDeadLetters()).toEqual(['bad']);
    });

    it('retries the whole batch when the consumer throws', async () => {
      consume = async (event) => {
        deliveries.push(...event.Records);
        if (event.Records.some((r) => r.attributes.ApproximateReceiveCount === '1')) throw new Error('transient');
        return { batchItemFailures: [] };
      };
      await send([
        { Id: '1', MessageBody: 'one' },
        { Id: '2', MessageBody: 'two' },
      ]);
      await service.drainQueues();

      expect(deliveredBodies()).toEqual(['one#1', 'one#2', 'two#1', 'two#2']);
      expect(await takeDeadLetters()).toEqual([]);
    });
  });

  it('runs a schedule on demand with an EventBridge scheduled event', async () => {
    await service.runSchedule('tick');
    expect(jobEvents).toEqual([
      expect.objectContaining({
        source: 'aws.events',
        'detail-type': 'Scheduled Event',
        resources: [expect.stringContaining('tick')],
        detail: {},
      }),
    ]);
    await expect(service.runSchedule('nope')).rejects.toThrow(/no schedule nope/);
  });

  it('sweeps expired items, as DynamoDB TTL would', async () => {
    const db = new DynamoDBClient({});
    const TableName = process.env.TABLE_NAME!;
    const now = Math.floor(Date.now() / 1000);
    const put = (sk: string, expiresAt?: number) =>
      db.send(
        new PutItemCommand({
          TableName,
          Item: { PK: { S: 'ttl' }, SK: { S: sk }, ...(expiresAt ? { expiresAt: { N: String(expiresAt) } } : {}) },
        }),
      );
    await put('expired', now - 10);
    await put('later', now + 3600);
    await put('forever');

    expect(await service.sweepExpired()).toBe(1);
    const { Items = [] } = await db.send(new ScanCommand({ TableName }));
    expect(Items.map((i) => i.SK!.S).sort()).toEqual(['forever', 'later']);
  });
});

describe('stopping', () => {
  it('first finishes the requests in flight', async () => {
    const service = await startLocalService({ catalog: testCatalog, loadModule, log: quiet });
    const started = new Promise<void>((resolve) => (slowRequestStarted = resolve));
    const response = fetch(`${service.baseUrl}/slow`);
    await started;
    await service.stop();
    expect(await (await response).text()).toBe('done');
  });

  it('drains the queues first, so that no accepted message is lost', async () => {
    const seen: string[] = [];
    consume = async (event) => {
      seen.push(...event.Records.map((r) => r.body));
    };
    const service = await startLocalService({ catalog: testCatalog, loadModule, log: quiet });
    await new SQSClient({}).send(new SendMessageBatchCommand({ QueueUrl: process.env[queueUrlEnv('work')]!, Entries: [{ Id: '1', MessageBody: 'last' }] }));
    await service.stop();
    expect(seen).toEqual(['last']);
  });

  it('does not wait for a message not yet due, which a data directory keeps for the next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'aos-delayed-'));
    const seen: string[] = [];
    consume = async (event) => {
      seen.push(...event.Records.map((r) => r.body));
    };
    const logged: string[] = [];
    try {
      const first = await startLocalService({ dataDir, catalog: testCatalog, loadModule, log: (line) => logged.push(line) });
      const queueUrl = process.env[queueUrlEnv('work')]!;
      await new SQSClient({}).send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'a refresh', DelaySeconds: 900 }));
      await first.stop();
      expect(seen).toEqual([]);
      expect(logged).toContain('[queues] 1 delayed message(s) not yet due, kept for the next start');

      const second = await startLocalService({ dataDir, catalog: testCatalog, loadModule, log: quiet });
      try {
        expect(await queueCounts(new SQSClient({}), process.env[queueUrlEnv('work')]!)).toEqual({ waiting: 0, inFlight: 0, delayed: 1 });
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the TTL sweep', () => {
  it('sweeps a slice of the table at a time, carrying on where the last one stopped, and starts over at the end', async () => {
    const dynamo = await startDynamoDb();
    try {
      const TableName = 'sweep-test';
      await createActiveTable(dynamo.client, createTableInput(TableName));
      const put = (sk: string, expiresAt: number) =>
        dynamo.client.send(new PutItemCommand({ TableName, Item: { PK: { S: `p${sk}` }, SK: { S: sk }, expiresAt: { N: String(expiresAt) } } }));
      const past = Math.floor(Date.now() / 1000) - 10;
      for (let i = 0; i < 50; i++) await put(`old-${i}`, past);
      await put('live', past + 3600);
      const slice = incrementalSweeper(dynamo.client, TableName, 20);
      const deleted = [await slice(), await slice(), await slice()];
      expect(deleted.every((n) => n <= 20)).toBe(true);
      expect(deleted.reduce((a, b) => a + b)).toBe(50);
      await put('old-again', past);
      expect(await slice()).toBe(1);
      const { Items = [] } = await dynamo.client.send(new ScanCommand({ TableName }));
      expect(Items.map((i) => i.SK!.S)).toEqual(['live']);
    } finally {
      await dynamo.stop();
    }
  });

  it('runs on its own at the interval asked for, and never when turned off', async () => {
    for (const [ttlSweepEveryMs, kept] of [
      [50, []],
      [false, ['expired']],
    ] as const) {
      const service = await startLocalService({ catalog: emptyCatalog, loadModule, log: quiet, ttlSweepEveryMs });
      try {
        const db = new DynamoDBClient({});
        const TableName = process.env.TABLE_NAME!;
        await db.send(
          new PutItemCommand({ TableName, Item: { PK: { S: 'ttl' }, SK: { S: 'expired' }, expiresAt: { N: String(Math.floor(Date.now() / 1000) - 10) } } }),
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
        const { Items = [] } = await db.send(new ScanCommand({ TableName }));
        expect(
          Items.map((i) => i.SK!.S),
          `every ${ttlSweepEveryMs} ms`,
        ).toEqual(kept);
      } finally {
        await service.stop();
      }
    }
  });
});

describe('a runtime with a data directory', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'aos-data-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const start = () => startLocalService({ dataDir, catalog: emptyCatalog, loadModule, log: quiet });
  const key = { PK: { S: 'persist' }, SK: { S: 'me' } };

  it('keeps the table and the signing seed across restarts', async () => {
    const first = await start();
    const seed = process.env.SIGNING_SEED;
    await new DynamoDBClient({}).send(new PutItemCommand({ TableName: process.env.TABLE_NAME!, Item: { ...key, note: { S: 'kept' } } }));
    await first.stop();

    const second = await start();
    try {
      const { Item } = await new DynamoDBClient({}).send(new GetItemCommand({ TableName: process.env.TABLE_NAME!, Key: key }));
      expect(Item?.note?.S).toBe('kept');
      const seedFile = join(dataDir, 'secrets', 'signing-seed');
      expect(process.env.SIGNING_SEED).toBe(seed);
      expect((await readFile(seedFile, 'utf8')).trim()).toBe(seed);
      expect(seed).toMatch(/^[0-9A-Za-z]{64}$/);
      expect((await stat(seedFile)).mode & 0o777).toBe(0o600);
      expect(second.outboxDir).toBe(join(dataDir, 'outbox'));
      // Taken before dynalite and the queues opened their stores (leveldb-mappings.ts).
      if (process.platform === 'linux') {
        const maps = await readFile('/proc/self/maps', 'utf8');
        expect(maps.split('\n').filter((line) => line.includes(join(dataDir, 'leveldb-mappings', ''))).length).toBe(1_000);
      }
    } finally {
      await second.stop();
    }
  });

  it('carries the data of a table with an older schema into the current one', async () => {
    const migrateDir = await mkdtemp(join(tmpdir(), 'aos-migrate-'));
    try {
      const dynamo = await startDynamoDb(join(migrateDir, 'dynamodb'));
      const old = { ...createTableInput('aos-local-00000000'), GlobalSecondaryIndexes: undefined };
      old.AttributeDefinitions = old.AttributeDefinitions.filter((a) => a.AttributeName === 'PK' || a.AttributeName === 'SK');
      await createActiveTable(dynamo.client, old);
      await dynamo.client.send(new PutItemCommand({ TableName: old.TableName, Item: { ...key, note: { S: 'from v0' } } }));
      await dynamo.stop();

      const service = await startLocalService({ dataDir: migrateDir, catalog: emptyCatalog, loadModule, log: quiet });
      try {
        const client = new DynamoDBClient({});
        const { Item } = await client.send(new GetItemCommand({ TableName: process.env.TABLE_NAME!, Key: key }));
        expect(Item?.note?.S).toBe('from v0');
        const { TableNames } = await client.send(new ListTablesCommand({}));
        expect(TableNames).toEqual([process.env.TABLE_NAME]);
      } finally {
        await service.stop();
      }
    } finally {
      await rm(migrateDir, { recursive: true, force: true });
    }
  });
});
