import { Logger } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions, LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import { ConfigError } from '../config-error.ts';

/**
 * Structured JSON logs through Powertools' Logger: one line per entry on stdout, which Lambda sends to
 * the function's log group as it is (locally, the terminal). On Lambda each line carries the function,
 * its cold start, the request id and the X-Ray trace (`injectLambdaContext` in the route's middy stack).
 * Request bodies and credential headers are never logged, and a field whose name says it holds a
 * secret is written as "[redacted]" whatever logs it.
 */
export const SERVICE = 'agent-observability';

const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
type Level = (typeof LEVELS)[number];

/** LOG_LEVEL, else the function's advanced logging control (AWS_LAMBDA_LOG_LEVEL), else INFO. */
export function logLevelOf(env: NodeJS.ProcessEnv): Level {
  const name = (env.LOG_LEVEL ?? env.AWS_LAMBDA_LOG_LEVEL ?? 'INFO').trim().toUpperCase();
  if (name === 'TRACE') return 'DEBUG';
  if (name === 'FATAL' || name === 'CRITICAL') return 'ERROR';
  if ((LEVELS as readonly string[]).includes(name)) return name as Level;
  throw new ConfigError(`invalid configuration: LOG_LEVEL must be one of ${LEVELS.join(', ')}, got "${name}"`);
}

/** Names of fields that hold a credential or one-time secret (`password`, `accessToken`, `x-api-key`…), not counts such as `inputTokens`. */
const SECRET_FIELD = /(password|secret|token|authorization|cookie|api[-_]?key|seed)$/i;

/** The JSON replacer Powertools applies before its own (errors, bigints, circular references). */
export const redactSecrets = (key: string, value: unknown): unknown =>
  key !== '' && SECRET_FIELD.test(key) && value !== undefined && value !== null ? '[redacted]' : value;

/**
 * The Logger, with one guarantee more: a log call never throws, whatever it is given (a throwing
 * getter, a revoked proxy); an entry that cannot be built is replaced by one that says so.
 */
class ServiceLogger extends Logger {
  protected override processLogItem(logLevel: number, input: LogItemMessage, extraInput: LogItemExtraInput): void {
    try {
      super.processLogItem(logLevel, input, extraInput);
    } catch {
      try {
        const message = typeof input === 'string' ? input : '[unprintable]';
        process.stdout.write(`${JSON.stringify({ level: 'ERROR', message, service: SERVICE, logError: 'the entry could not be built' })}\n`);
      } catch {
        // stdout itself is gone: nothing is left to tell.
      }
    }
  }

  protected override createLogger(options?: ConstructorOptions): Logger {
    return new ServiceLogger(options);
  }
}

/** What was thrown, as a log entry's `error` takes it: an Error as such (name, message, stack, cause), anything else as an Error saying what it was. */
export function thrown(err: unknown): Error {
  if (err instanceof Error) return err;
  let text: string;
  try {
    text = String(err);
  } catch {
    text = '[unprintable]';
  }
  return Object.assign(new Error(text), { name: 'NonErrorThrown' });
}

/** A logger of the service at `level`. */
export const createLogger = (level: Level): Logger => new ServiceLogger({ serviceName: SERVICE, logLevel: level, jsonReplacerFn: redactSecrets });

/** Read once at module load: a misspelt level fails the cold start, not every request. */
export const logger: Logger = createLogger(logLevelOf(process.env));
