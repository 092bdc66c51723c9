import { isDeepStrictEqual } from 'node:util';
import { newArrival } from '#shared/domain/ingest/arrival.ts';
import { traceSignal } from '#shared/domain/ingest/otlp.ts';
import { decodeTraceRequest } from '#shared/domain/otlp/decode.ts';
import { decodeRequest } from '#shared/domain/otlp/protobuf.ts';
import { mapTraceRequest } from '#shared/domain/otlp/traces.ts';
import { agentRunSpans, serializeSpans } from '../../unit/otlp/sdk-payloads.ts';
import type { Figure, Scenario, ScenarioResult } from '../scenario.ts';
import { collectGarbage, median, percentile, round } from '../stats.ts';
import { recordDialectExports } from './dialects.ts';

const WARMUP_RUNS = 20;

interface Timing {
  medianMs: number;
  p99Ms: number;
}

/** Runs `work` `runs` times after a warm-up; each run timed on its own. */
function time(work: () => unknown, runs: number): Timing {
  for (let i = 0; i < WARMUP_RUNS; i++) work();
  collectGarbage();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return { medianMs: median(times), p99Ms: percentile(times, 0.99) };
}

export const otlpDecodeScenario: Scenario = {
  name: 'otlp-decode',
  summary:
    "one OTLP/HTTP trace export made by the OpenTelemetry SDK, decoded from protobuf by the OTLP routes' codec (generated from opentelemetry-proto by protobufjs), against JSON.parse of the same export's OTLP/JSON twin; then decoded and mapped to spans from either encoding, as the routes do; then one export per dialect the mapping reads (recorded from the real producers), decoded and mapped, with the mapping's own cost per span",
  flags: {
    'agent-runs': { default: 300, max: 5_000, description: 'agent runs (3 spans each) in the export' },
    runs: { default: 200, description: 'measured runs of each step (median and p99 over these)' },
    'dialect-runs': { default: 100, max: 1_000, description: 'producer runs recorded into each dialect export' },
  },
  run: async (flags, progress): Promise<ScenarioResult> => {
    const runs = flags['runs']!;
    progress('recording and serializing the export with the OpenTelemetry SDK');
    const spans = Array.from({ length: flags['agent-runs']! }, () => agentRunSpans()).flat();
    const { protobuf, json } = serializeSpans(spans);

    // Both encodings of one export must read alike, or the figures compare different work.
    const failures = isDeepStrictEqual(decodeTraceRequest(protobuf, 'protobuf'), decodeTraceRequest(json, 'json'))
      ? []
      : ['the protobuf export and its JSON twin decode differently'];

    progress(`timing ${runs} runs of each step`);
    const wire = time(() => decodeRequest('ExportTraceServiceRequest', protobuf), runs);
    const jsonParse = time(() => JSON.parse(json.toString('utf8')), runs);
    const arrival = newArrival(Date.now());
    const fromProtobuf = time(() => traceSignal.read(protobuf, 'protobuf', arrival), runs);
    const fromJson = time(() => traceSignal.read(json, 'json', arrival), runs);
    const mapped = traceSignal.read(protobuf, 'protobuf', arrival).telemetry.spans.length;
    if (mapped !== spans.length) failures.push(`${spans.length} spans exported, ${mapped} mapped`);

    const decoded = decodeTraceRequest(protobuf, 'protobuf');
    const mapOnly = time(() => mapTraceRequest(decoded, arrival), runs);
    const usPerSpan = (ms: number, count: number) => round((ms * 1000) / count, 2);

    progress(`recording ${flags['dialect-runs']} producer runs per dialect`);
    const dialectFigures: Figure[] = [];
    for (const { key, label, spans: dialectSpans } of await recordDialectExports(flags['dialect-runs']!)) {
      const serialized = serializeSpans(dialectSpans);
      const request = decodeTraceRequest(serialized.protobuf, 'protobuf');
      if (!isDeepStrictEqual(request, decodeTraceRequest(serialized.json, 'json')))
        failures.push(`the ${key} export decodes differently from protobuf and JSON`);
      const mappedCount = mapTraceRequest(request, arrival).spans.length;
      if (mappedCount !== dialectSpans.length) failures.push(`${key}: ${dialectSpans.length} spans exported, ${mappedCount} mapped`);
      progress(`timing the ${key} export (${dialectSpans.length} spans)`);
      const decodeMap = time(() => traceSignal.read(serialized.protobuf, 'protobuf', arrival), runs);
      const dialectMap = time(() => mapTraceRequest(request, arrival), runs);
      dialectFigures.push(
        { key: `${key}Spans`, label: `${label}: spans in the export`, value: dialectSpans.length },
        { key: `${key}DecodeMapMs`, label: `${key}: decode and map from protobuf, median`, value: round(decodeMap.medianMs, 2), unit: 'ms' },
        { key: `${key}MapUsPerSpan`, label: `${key}: mapping alone, per span, median`, value: usPerSpan(dialectMap.medianMs, dialectSpans.length), unit: 'µs' },
      );
    }

    const mbPerSecond = (bytes: number, ms: number) => round(bytes / 2 ** 20 / (ms / 1000), 1);
    const spansPerSecond = (ms: number) => round(spans.length / (ms / 1000));
    const figures: Figure[] = [
      { key: 'spans', label: 'spans in the export', value: spans.length },
      { key: 'protobufKb', label: 'export size, protobuf', value: round(protobuf.length / 1024), unit: 'KB' },
      { key: 'jsonKb', label: 'export size, OTLP/JSON', value: round(json.length / 1024), unit: 'KB' },
      { key: 'wireReadMs', label: 'protobuf decode (generated codec), median', value: round(wire.medianMs, 2), unit: 'ms' },
      { key: 'wireReadP99Ms', label: 'protobuf decode (generated codec), p99', value: round(wire.p99Ms, 2), unit: 'ms' },
      { key: 'wireReadMbPerSecond', label: 'protobuf decode (generated codec), throughput', value: mbPerSecond(protobuf.length, wire.medianMs), unit: 'MB/s' },
      { key: 'jsonParseMs', label: 'baseline: JSON.parse of the JSON twin, median', value: round(jsonParse.medianMs, 2), unit: 'ms' },
      { key: 'wireReadOverJsonParse', label: 'protobuf decode / JSON.parse', value: round(wire.medianMs / jsonParse.medianMs, 2) },
      { key: 'protobufDecodeMapMs', label: 'decode and map to spans, protobuf, median', value: round(fromProtobuf.medianMs, 2), unit: 'ms' },
      { key: 'jsonDecodeMapMs', label: 'decode and map to spans, JSON, median', value: round(fromJson.medianMs, 2), unit: 'ms' },
      { key: 'protobufSpansPerSecond', label: 'decode and map, protobuf: spans per second of one core', value: spansPerSecond(fromProtobuf.medianMs) },
      { key: 'jsonSpansPerSecond', label: 'decode and map, JSON: spans per second of one core', value: spansPerSecond(fromJson.medianMs) },
      { key: 'decodeMapUsPerSpan', label: 'decode and map, protobuf, per span, median', value: usPerSpan(fromProtobuf.medianMs, spans.length), unit: 'µs' },
      { key: 'genAiMapUsPerSpan', label: 'GenAI (this export): mapping alone, per span, median', value: usPerSpan(mapOnly.medianMs, spans.length), unit: 'µs' },
      ...dialectFigures,
    ];
    return { parameters: flags, figures, failures };
  },
};
