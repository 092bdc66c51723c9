import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs. Request bodies and credential headers are never logged. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'agent-observability' });
