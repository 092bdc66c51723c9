/**
 * AWS list prices, us-east-1, in US dollars, without free tiers or volume discounts. The one place
 * `npm run cost` takes prices from, except the judge's model, whose per-token price comes from the
 * service's own table (shared/domain/pricing/model-prices.ts), so the two cannot disagree.
 */
export const PRICES = {
  asOf: '2025-11-01',
  region: 'us-east-1',
  dynamodb: {
    /** On demand (the prices cut in half in November 2024). A GSI write is billed as a table write. */
    perMillionWriteRequestUnits: 0.625,
    perMillionReadRequestUnits: 0.125,
    /** Standard table class; GSIs are stored and billed like the table. */
    storagePerGbMonth: 0.25,
    /** Point-in-time recovery, on in the stateful stack: billed on the table's size (GSIs excluded). */
    pitrPerGbMonth: 0.2,
  },
  lambda: {
    architecture: 'arm64',
    perMillionRequests: 0.2,
    perGbSecond: 0.0000133334,
  },
  apiGateway: {
    /** HTTP API, first 300 million a month; a request is metered in 512 KB increments. */
    perMillionHttpRequests: 1.0,
    meteredBytes: 512 * 1024,
  },
  sqs: {
    /** Standard queue; every 64 KB chunk of a request's payload is billed as one request. */
    perMillionRequests: 0.4,
    chunkBytes: 64 * 1024,
  },
  /**
   * SQL queries, by the bytes they scan (compressed, columns read only): rounded up to the MB, at least
   * 10 MB a query; DDL (CREATE/DROP TABLE) and failed queries are free, a cancelled one is billed for what
   * it scanned (https://aws.amazon.com/athena/pricing/). TB and MB as binary units here, as Athena reports bytes.
   */
  athena: { perTbScanned: 5, minimumMbPerQuery: 10 },
  /** S3 Standard, first 50 TB a month: the lake's files. */
  s3: { standardPerGbMonth: 0.023 },
  ses: { perEmail: 0.0001 },
  /** A US transactional SMS through SNS (AWS End User Messaging), without the carrier fees that come on top. */
  sns: { perUsSms: 0.00581 },
} as const;

export type Prices = typeof PRICES;
