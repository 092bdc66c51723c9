/**
 * Stands in for `@smithy/core/event-streams` in the bundles of functions whose SDK clients have no
 * event-stream operation (every client but Bedrock Runtime's). The SDK imports that codec lazily, only
 * for such operations, but esbuild inlines a lazy import: 19 KB in every function, never run.
 *
 * Loading this module fails, so a misuse surfaces as this error rather than as a broken codec. A client
 * that imports the codec statically fails the function's build instead: nothing here is exported.
 */
export {};
throw new Error('the SDK event-stream codec is not bundled into this function: list its module in EVENT_STREAM_MODULES (infra/aws/service-function.ts)');
