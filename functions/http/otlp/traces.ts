import { otlpExportRoute } from '../../../shared/http/otlp-route.ts';

export const handler = otlpExportRoute('traces');
