import { createTableInput } from '#shared/store/table.ts';

/**
 * DynamoDB's size rules, for items as the DocumentClient sends and returns them (native values):
 * an attribute is its name's UTF-8 bytes plus its value; a string its UTF-8 bytes; a number about
 * one byte per two significant digits plus one; binary its bytes; null and booleans one byte; a list
 * or map 3 bytes plus, per element, the element and one byte (and a map element's name); a set the
 * sum of its members. Storage adds 100 bytes per item (and per index entry).
 */
export const STORAGE_OVERHEAD_BYTES = 100;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

function numberSize(n: number): number {
  const significant = Math.abs(n).toExponential().split('e')[0]!.replace('.', '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, significant.length) / 2) + 1;
}

function valueSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number') return numberSize(value);
  if (typeof value === 'bigint') return numberSize(Number(value));
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, member) => sum + valueSize(member), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + valueSize(element) + 1, 0);
  if (typeof value === 'object') return 3 + attributesSize(value as Record<string, unknown>, 1);
  throw new Error(`no DynamoDB size for a ${typeof value}`);
}

function attributesSize(attributes: Record<string, unknown>, perElement: number): number {
  let size = 0;
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) size += utf8(name) + valueSize(value) + perElement;
  }
  return size;
}

/** The item's size in bytes, as capacity units are computed from it. */
export const itemSize = (item: Record<string, unknown>): number => attributesSize(item, 0);

export const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));

const INDEXES = createTableInput('size-rules').GlobalSecondaryIndexes;
if (INDEXES.some((index) => index.Projection.ProjectionType !== 'ALL')) {
  throw new Error('the cost meter sizes index entries of ALL projections only; teach it the new projection');
}

/** The global secondary indexes the item is in (it has both of their key attributes): with ALL projected, each holds all of it. */
export const indexesOf = (item: Record<string, unknown>): string[] =>
  INDEXES.filter((index) => index.KeySchema.every((key) => item[key.AttributeName] !== undefined)).map((index) => index.IndexName);

/** An item's kind: its `entity` attribute, else its sort key's prefix; judge verdicts (eval.* signals) apart. */
export function kindOf(item: Record<string, unknown>): string {
  const kind = typeof item['entity'] === 'string' ? item['entity'] : String(item['SK']).split(/[#:]/)[0]!;
  return typeof item['signalName'] === 'string' && item['signalName'].startsWith('eval.') ? `${kind} (judge verdict)` : kind;
}
