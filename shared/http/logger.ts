/**
 * Structured JSON logs: one line per entry on stdout, which Lambda sends to the function's log group as
 * it is. Request bodies and credential headers are never logged. A Lambda logging library would add
 * ~20 KB to every function bundle for the little used here.
 */
const LEVELS = { DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, SILENT: 28 } as const;
type Level = keyof typeof LEVELS;

/** LOG_LEVEL, else the function's advanced logging control (AWS_LAMBDA_LOG_LEVEL), else INFO. */
export function logLevelOf(env: NodeJS.ProcessEnv): Level {
  const name = (env.LOG_LEVEL ?? env.AWS_LAMBDA_LOG_LEVEL ?? 'INFO').trim().toUpperCase();
  if (name === 'TRACE') return 'DEBUG';
  if (name === 'FATAL' || name === 'CRITICAL') return 'ERROR';
  if (Object.hasOwn(LEVELS, name)) return name as Level;
  throw new Error(`invalid configuration: LOG_LEVEL must be one of ${Object.keys(LEVELS).join(', ')}, got "${name}"`);
}

const SERVICE = 'agent-observability';

interface ErrorFields {
  name: string;
  message: string;
  stack?: string;
  cause?: ErrorFields | string;
}

/** A value read or turned into text without letting a throwing getter or toString escape the log call. */
function safely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

const textOf = (value: unknown): string => safely(() => String(value), '[unprintable]');

function errorFields(err: Error, depth = 0): ErrorFields {
  const rawCause = safely(() => err.cause, undefined);
  const cause = rawCause === undefined || depth >= 3 ? undefined : rawCause instanceof Error ? errorFields(rawCause, depth + 1) : textOf(rawCause);
  const stack = safely(() => err.stack, undefined);
  return {
    name: textOf(safely(() => err.name, 'Error')),
    message: textOf(safely(() => err.message, '')),
    ...(typeof stack === 'string' ? { stack } : {}),
    ...(cause === undefined ? {} : { cause }),
  };
}

/** An Error becomes `error`; a plain object's fields are merged in; anything else becomes `detail`. */
function fieldsOf(detail: unknown): [string, unknown][] {
  if (detail === undefined) return [];
  if (detail instanceof Error) return [['error', errorFields(detail)]];
  if (typeof detail === 'object' && detail !== null && !Array.isArray(detail)) return Object.entries(detail);
  return [['detail', textOf(detail)]];
}

const replacer = (_key: string, value: unknown) =>
  typeof value === 'bigint' ? value.toString() : value instanceof Error ? errorFields(value) : value;

/** The field as JSON, or a note in its place when it cannot be serialised (a circular structure, a throwing getter). */
const jsonOf = (value: unknown): string => safely(() => JSON.stringify(value, replacer) ?? 'null', '"[unserialisable]"');

export function createLogger(level: Level, write: (line: string) => void = (line) => process.stdout.write(line)) {
  const threshold = LEVELS[level];
  let persistentKeys: Record<string, unknown> = {};

  function entryOf(level: string, message: string, detail: unknown): string {
    const fields = new Map<string, string>([
      ['level', jsonOf(level)],
      ['message', jsonOf(message)],
      ['timestamp', jsonOf(new Date().toISOString())],
      ['service', jsonOf(SERVICE)],
    ]);
    const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
    if (functionName) fields.set('function', jsonOf(functionName));
    const traceRoot = /(?:^|;)Root=([^;]+)/.exec(process.env._X_AMZN_TRACE_ID ?? '')?.[1];
    if (traceRoot) fields.set('xray_trace_id', jsonOf(traceRoot));
    for (const [key, value] of [...Object.entries(persistentKeys), ...fieldsOf(detail)]) {
      // Later fields win over persistent keys, never over the entry's own.
      if (value !== undefined && !['level', 'message', 'timestamp', 'service', 'function', 'xray_trace_id'].includes(key)) fields.set(key, jsonOf(value));
    }
    return `{${[...fields].map(([key, json]) => `${JSON.stringify(key)}:${json}`).join(',')}}`;
  }

  function log(level: 'INFO' | 'WARN' | 'ERROR', message: string, detail?: unknown): void {
    if (LEVELS[level] < threshold) return;
    const line = safely(() => entryOf(level, message, detail), JSON.stringify({ level, message: textOf(message), logError: 'the entry could not be built' }));
    safely(() => write(`${line}\n`), undefined);
  }

  return {
    info: (message: string, detail?: unknown) => log('INFO', message, detail),
    warn: (message: string, detail?: unknown) => log('WARN', message, detail),
    error: (message: string, detail?: unknown) => log('ERROR', message, detail),
    /** Keys every following entry carries, until `resetKeys`. */
    appendKeys: (keys: Record<string, unknown>) => void (persistentKeys = { ...persistentKeys, ...keys }),
    resetKeys: () => void (persistentKeys = {}),
  };
}

export type Logger = ReturnType<typeof createLogger>;

/** Read once at module load: a misspelt level fails the cold start, not every request. */
export const logger: Logger = createLogger(logLevelOf(process.env));
