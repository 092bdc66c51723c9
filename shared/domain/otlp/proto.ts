/**
 * The subset of opentelemetry-proto (v1.x) the service reads and writes, as a protobufjs JSON
 * descriptor, so esbuild bundles it into each Lambda and nothing reads a .proto file at run time.
 * Field names are the lowerCamelCase names OTLP/JSON uses; field numbers follow the upstream files
 * common/v1, resource/v1, trace/v1, logs/v1 and collector/{trace,logs}/v1. Fields left out (such as
 * Resource.entity_refs) are skipped by the decoder as unknown fields.
 */
import protobuf from 'protobufjs/light.js';

const COMMON = 'opentelemetry.proto.common.v1';
const RESOURCE = 'opentelemetry.proto.resource.v1';
const TRACE = 'opentelemetry.proto.trace.v1';
const LOGS = 'opentelemetry.proto.logs.v1';

const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });
const keyValues = (id: number) => repeated(`${COMMON}.KeyValue`, id);

const common = {
  AnyValue: {
    oneofs: {
      value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] },
    },
    fields: {
      stringValue: { type: 'string', id: 1 },
      boolValue: { type: 'bool', id: 2 },
      intValue: { type: 'int64', id: 3 },
      doubleValue: { type: 'double', id: 4 },
      arrayValue: { type: 'ArrayValue', id: 5 },
      kvlistValue: { type: 'KeyValueList', id: 6 },
      bytesValue: { type: 'bytes', id: 7 },
    },
  },
  ArrayValue: { fields: { values: repeated('AnyValue', 1) } },
  KeyValueList: { fields: { values: repeated('KeyValue', 1) } },
  KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
  InstrumentationScope: {
    fields: {
      name: { type: 'string', id: 1 },
      version: { type: 'string', id: 2 },
      attributes: keyValues(3),
      droppedAttributesCount: { type: 'uint32', id: 4 },
    },
  },
};

const resource = {
  Resource: { fields: { attributes: keyValues(1), droppedAttributesCount: { type: 'uint32', id: 2 } } },
};

const trace = {
  ResourceSpans: {
    fields: {
      resource: { type: `${RESOURCE}.Resource`, id: 1 },
      scopeSpans: repeated('ScopeSpans', 2),
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  ScopeSpans: {
    fields: {
      scope: { type: `${COMMON}.InstrumentationScope`, id: 1 },
      spans: repeated('Span', 2),
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  Span: {
    fields: {
      traceId: { type: 'bytes', id: 1 },
      spanId: { type: 'bytes', id: 2 },
      traceState: { type: 'string', id: 3 },
      parentSpanId: { type: 'bytes', id: 4 },
      flags: { type: 'fixed32', id: 16 },
      name: { type: 'string', id: 5 },
      kind: { type: 'SpanKind', id: 6 },
      startTimeUnixNano: { type: 'fixed64', id: 7 },
      endTimeUnixNano: { type: 'fixed64', id: 8 },
      attributes: keyValues(9),
      droppedAttributesCount: { type: 'uint32', id: 10 },
      events: repeated('Event', 11),
      droppedEventsCount: { type: 'uint32', id: 12 },
      links: repeated('Link', 13),
      droppedLinksCount: { type: 'uint32', id: 14 },
      status: { type: `${TRACE}.Status`, id: 15 },
    },
    nested: {
      SpanKind: {
        values: {
          SPAN_KIND_UNSPECIFIED: 0,
          SPAN_KIND_INTERNAL: 1,
          SPAN_KIND_SERVER: 2,
          SPAN_KIND_CLIENT: 3,
          SPAN_KIND_PRODUCER: 4,
          SPAN_KIND_CONSUMER: 5,
        },
      },
      Event: {
        fields: {
          timeUnixNano: { type: 'fixed64', id: 1 },
          name: { type: 'string', id: 2 },
          attributes: keyValues(3),
          droppedAttributesCount: { type: 'uint32', id: 4 },
        },
      },
      Link: {
        fields: {
          traceId: { type: 'bytes', id: 1 },
          spanId: { type: 'bytes', id: 2 },
          traceState: { type: 'string', id: 3 },
          attributes: keyValues(4),
          droppedAttributesCount: { type: 'uint32', id: 5 },
          flags: { type: 'fixed32', id: 6 },
        },
      },
    },
  },
  Status: {
    fields: { message: { type: 'string', id: 2 }, code: { type: 'StatusCode', id: 3 } },
    nested: { StatusCode: { values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } } },
  },
};

const SEVERITY_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'];

const logs = {
  ResourceLogs: {
    fields: {
      resource: { type: `${RESOURCE}.Resource`, id: 1 },
      scopeLogs: repeated('ScopeLogs', 2),
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  ScopeLogs: {
    fields: {
      scope: { type: `${COMMON}.InstrumentationScope`, id: 1 },
      logRecords: repeated('LogRecord', 2),
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  // SEVERITY_NUMBER_TRACE = 1, TRACE2 = 2 … FATAL4 = 24: four numbers per level.
  SeverityNumber: {
    values: Object.fromEntries([
      ['SEVERITY_NUMBER_UNSPECIFIED', 0],
      ...SEVERITY_LEVELS.flatMap((level, i) =>
        [1, 2, 3, 4].map((n) => [`SEVERITY_NUMBER_${level}${n === 1 ? '' : n}`, i * 4 + n]),
      ),
    ]),
  },
  LogRecord: {
    fields: {
      timeUnixNano: { type: 'fixed64', id: 1 },
      observedTimeUnixNano: { type: 'fixed64', id: 11 },
      severityNumber: { type: 'SeverityNumber', id: 2 },
      severityText: { type: 'string', id: 3 },
      body: { type: `${COMMON}.AnyValue`, id: 5 },
      attributes: keyValues(6),
      droppedAttributesCount: { type: 'uint32', id: 7 },
      flags: { type: 'fixed32', id: 8 },
      traceId: { type: 'bytes', id: 9 },
      spanId: { type: 'bytes', id: 10 },
      eventName: { type: 'string', id: 12 },
    },
  },
};

const traceService = {
  ExportTraceServiceRequest: { fields: { resourceSpans: repeated(`${TRACE}.ResourceSpans`, 1) } },
  ExportTraceServiceResponse: { fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } } },
  ExportTracePartialSuccess: {
    fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
  },
};

const logsService = {
  ExportLogsServiceRequest: { fields: { resourceLogs: repeated(`${LOGS}.ResourceLogs`, 1) } },
  ExportLogsServiceResponse: { fields: { partialSuccess: { type: 'ExportLogsPartialSuccess', id: 1 } } },
  ExportLogsPartialSuccess: {
    fields: { rejectedLogRecords: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
  },
};

const v1 = (types: Record<string, protobuf.AnyNestedObject>): protobuf.INamespace => ({
  nested: { v1: { nested: types } },
});

const otlpRoot = protobuf.Root.fromJSON({
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: v1(common),
            resource: v1(resource),
            trace: v1(trace),
            logs: v1(logs),
            collector: {
              nested: {
                trace: v1(traceService),
                logs: v1(logsService),
              },
            },
          },
        },
      },
    },
  },
});

const COLLECTOR = 'opentelemetry.proto.collector';

export const ExportTraceServiceRequest = otlpRoot.lookupType(`${COLLECTOR}.trace.v1.ExportTraceServiceRequest`);
export const ExportTraceServiceResponse = otlpRoot.lookupType(`${COLLECTOR}.trace.v1.ExportTraceServiceResponse`);
export const ExportLogsServiceRequest = otlpRoot.lookupType(`${COLLECTOR}.logs.v1.ExportLogsServiceRequest`);
export const ExportLogsServiceResponse = otlpRoot.lookupType(`${COLLECTOR}.logs.v1.ExportLogsServiceResponse`);

export const StatusCodeEnum = otlpRoot.lookupEnum(`${TRACE}.Status.StatusCode`);
export const SeverityNumberEnum = otlpRoot.lookupEnum(`${LOGS}.SeverityNumber`);
