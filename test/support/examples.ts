import * as z from 'zod';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
  minItems?: number;
};

/**
 * A plausible valid value for a JSON schema (from a zod schema's input side), to mutate from: its
 * required fields, or with `everyField` its optional ones too.
 */
export function exampleOf(schema: JsonSchema, depth = 0, everyField = false): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const choice = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (choice) return exampleOf(choice, depth + 1, everyField);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const keys = everyField ? Object.keys(schema.properties ?? {}) : (schema.required ?? []);
      for (const key of keys) out[key] = exampleOf(schema.properties?.[key] ?? {}, depth + 1, everyField);
      return out;
    }
    case 'array':
      return depth > 4 ? [] : Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(schema.items ?? {}, depth + 1, everyField));
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format === 'date-time' || /\\d\{4\}/.test(schema.pattern ?? '')) return '2026-01-01T00:00:00Z';
      if (schema.pattern?.includes('+[1-9]')) return '+14155550100';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return 'x';
  }
}

export const jsonSchemaOf = (schema: z.core.$ZodType): JsonSchema => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
