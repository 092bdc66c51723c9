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

function errorFields(err: Error, depth = 0): ErrorFields {
  const cause = err.cause === undefined || depth >= 3 ? undefined : err.cause instanceof Error ? errorFields(err.cause, depth + 1) : String(err.cause);
  return { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}), ...(cause === undefined ? {} : { cause }) };
}

/** An Error becomes `error`; a plain object's fields are merged in; anything else becomes `detail`. */
function fieldsOf(detail: unknown): Record<string, unknown> {
  if (detail === undefined) return {};
  if (detail instanceof Error) return { error: errorFields(detail) };
  if (typeof detail === 'object' && detail !== null && !Array.isArray(detail)) return detail as Record<string, unknown>;
  return { detail: String(detail) };
}

const replacer = (_key: string, value: unknown) =>
  typeof value === 'bigint' ? value.toString() : value instanceof Error ? errorFields(value) : value;

function serialize(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry, replacer);
  } catch {
    // A circular structure: keep the entry, lose its extra fields.
    const { level, message, timestamp, service } = entry;
    return JSON.stringify({ level, message, timestamp, service, logError: 'fields could not be serialised' });
  }
}

export function createLogger(level: Level, write: (line: string) => void = (line) => process.stdout.write(line)) {
  const threshold = LEVELS[level];
  let persistentKeys: Record<string, unknown> = {};

  function log(level: 'INFO' | 'WARN' | 'ERROR', message: string, detail?: unknown): void {
    if (LEVELS[level] < threshold) return;
    const entry: Record<string, unknown> = { level, message, timestamp: new Date().toISOString(), service: SERVICE };
    const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
    if (functionName) entry['function'] = functionName;
    const traceRoot = /(?:^|;)Root=([^;]+)/.exec(process.env._X_AMZN_TRACE_ID ?? '')?.[1];
    if (traceRoot) entry['xray_trace_id'] = traceRoot;
    for (const [key, value] of Object.entries({ ...persistentKeys, ...fieldsOf(detail) })) {
      if (!Object.hasOwn(entry, key) && value !== undefined) entry[key] = value;
    }
    write(`${serialize(entry)}\n`);
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
