/**
 * Stands in for `@smithy/core/event-streams` in every function's bundle (an esbuild alias): no SDK client
 * the functions use has an event-stream operation. The SDK imports that codec lazily, only for such
 * operations, but esbuild inlines a lazy import: 19 KB in every function, never run.
 *
 * Loading this module fails, so a misuse surfaces as this error rather than as a broken codec. A client
 * that imports the codec statically fails the build instead: nothing here is exported.
 */
export {};
throw new Error('the SDK event-stream codec is not bundled: a client with event-stream operations needs `@smithy/core/event-streams` out of BUNDLING.alias (infra/aws/service-function.ts)');
