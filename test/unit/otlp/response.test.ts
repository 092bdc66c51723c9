import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import { encodeExportResponse } from '#shared/domain/otlp/response.ts';

const bytesOf = (body: Buffer | string): Buffer => (typeof body === 'string' ? Buffer.from(body) : body);

describe('export responses in OTLP/JSON', () => {
  it('are empty objects when everything was accepted', () => {
    expect(encodeExportResponse('traces', undefined, 'json')).toEqual({ body: '{}', contentType: 'application/json' });
    expect(encodeExportResponse('logs', { rejected: 0, errorMessage: '' }, 'json').body).toBe('{}');
  });

  it('carry partialSuccess with the rejected count as an int64 string', () => {
    expect(JSON.parse(encodeExportResponse('traces', { rejected: 3, errorMessage: 'span 1: name is missing' }, 'json').body as string)).toEqual({
      partialSuccess: { rejectedSpans: '3', errorMessage: 'span 1: name is missing' },
    });
    expect(JSON.parse(encodeExportResponse('logs', { rejected: 1, errorMessage: 'bad id' }, 'json').body as string)).toEqual({
      partialSuccess: { rejectedLogRecords: '1', errorMessage: 'bad id' },
    });
  });

  it('carry a warning even when nothing was rejected', () => {
    expect(JSON.parse(encodeExportResponse('traces', { rejected: 0, errorMessage: 'inputs truncated' }, 'json').body as string)).toEqual({
      partialSuccess: { rejectedSpans: '0', errorMessage: 'inputs truncated' },
    });
  });
});

describe('export responses in OTLP/protobuf', () => {
  it('are empty messages when everything was accepted', () => {
    const { body, contentType } = encodeExportResponse('traces', undefined, 'protobuf');
    expect(contentType).toBe('application/x-protobuf');
    expect(bytesOf(body)).toHaveLength(0);
  });

  it('hold partial_success (field 1) with the rejected count (field 1, varint) and the message (field 2), defaults left out as proto3 does', () => {
    const traces = bytesOf(encodeExportResponse('traces', { rejected: 2, errorMessage: 'why' }, 'protobuf').body);
    expect(traces.toString('hex')).toBe(`0a07${'0802'}${'1203'}${Buffer.from('why').toString('hex')}`);
    const logs = bytesOf(encodeExportResponse('logs', { rejected: 300, errorMessage: '' }, 'protobuf').body);
    expect(logs.toString('hex')).toBe(`0a03${'08ac02'}`);
    expect(bytesOf(encodeExportResponse('logs', { rejected: 0, errorMessage: 'warning' }, 'protobuf').body).toString('hex')).toBe(
      `0a09${'1207'}${Buffer.from('warning').toString('hex')}`,
    );
  });

  it('are read by the OpenTelemetry SDK exporters as sent', () => {
    const traces = bytesOf(encodeExportResponse('traces', { rejected: 300, errorMessage: 'spans 1, 2: name is missing' }, 'protobuf').body);
    expect(ProtobufTraceSerializer.deserializeResponse(traces)).toEqual({
      partialSuccess: { rejectedSpans: 300, errorMessage: 'spans 1, 2: name is missing' },
    });
    const logs = bytesOf(encodeExportResponse('logs', { rejected: 1, errorMessage: 'bad id' }, 'protobuf').body);
    expect(ProtobufLogsSerializer.deserializeResponse(logs)).toEqual({ partialSuccess: { rejectedLogRecords: 1, errorMessage: 'bad id' } });
  });
});
