/** OTLP log records → canonical logs. Records with malformed trace or span ids are refused one by one. */
import { type Arrival, arrivalKeyOf, type CanonicalLog, type LogLevel } from '../spans/model.ts';
import { AttributeReader, asText } from './attributes.ts';
import { agentNameOf, inheritedAttributes, isAbsentId, isSpanId, isTraceId, type RejectionSummary, Rejections, timeMsOrNull } from './common.ts';
import type { OtlpLogRecord, OtlpLogsRequest } from './decode.ts';

export interface MappedLogs {
  logs: CanonicalLog[];
  rejected: RejectionSummary;
}

export function mapLogsRequest(request: OtlpLogsRequest, arrival: Arrival): MappedLogs {
  const logs: CanonicalLog[] = [];
  const rejections = new Rejections('log record');
  let index = 0;
  for (const { resource, scopeLogs } of request.resourceLogs) {
    for (const { scope, logRecords } of scopeLogs) {
      const inherited = inheritedAttributes(resource.attributes, scope);
      for (const record of logRecords) {
        const problem = logRecordProblem(record);
        if (problem === null) {
          const attributes = new AttributeReader(record.attributes);
          const sentAtMs = timeMsOrNull(record.timeUnixNano) ?? timeMsOrNull(record.observedTimeUnixNano);
          logs.push({
            timestampMs: sentAtMs ?? arrival.atMs,
            level: levelOf(record.severityNumber, record.severityText),
            message: asText(record.body) ?? record.eventName,
            eventName: record.eventName || null,
            traceId: isAbsentId(record.traceId) ? null : record.traceId,
            spanId: isAbsentId(record.spanId) ? null : record.spanId,
            agentName: agentNameOf(attributes, resource.attributes),
            attributes: { ...inherited, ...attributes.remaining() },
            ...(sentAtMs === null && { arrivalKey: arrivalKeyOf(arrival, index) }),
          });
        } else {
          rejections.add(index, problem);
        }
        index += 1;
      }
    }
  }
  return { logs, rejected: rejections.summary() };
}

function logRecordProblem(record: OtlpLogRecord): string | null {
  if (!isAbsentId(record.traceId) && !isTraceId(record.traceId)) return 'traceId must be empty or 16 bytes (32 hex characters)';
  if (!isAbsentId(record.spanId) && !isSpanId(record.spanId)) return 'spanId must be empty or 8 bytes (16 hex characters)';
  return null;
}

/** SeverityNumber 1–4 is TRACE, 5–8 DEBUG, … 21–24 FATAL. */
const LEVELS_BY_SEVERITY_QUARTER: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** Severity texts of common logging libraries, for records that carry no SeverityNumber. */
const LEVEL_BY_TEXT = new Map<string, LogLevel>([
  ['trace', 'trace'],
  ['debug', 'debug'],
  ['info', 'info'],
  ['information', 'info'],
  ['notice', 'info'],
  ['warn', 'warn'],
  ['warning', 'warn'],
  ['error', 'error'],
  ['err', 'error'],
  ['fatal', 'fatal'],
  ['critical', 'fatal'],
  ['crit', 'fatal'],
  ['alert', 'fatal'],
  ['emergency', 'fatal'],
  ['panic', 'fatal'],
]);

function levelOf(severityNumber: number, severityText: string): LogLevel {
  const bySeverity = severityNumber >= 1 ? LEVELS_BY_SEVERITY_QUARTER[Math.ceil(severityNumber / 4) - 1] : undefined;
  return bySeverity ?? LEVEL_BY_TEXT.get(severityText.trim().toLowerCase()) ?? 'info';
}
