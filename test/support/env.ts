// Defaults for tests that load modules reading configuration without starting the local runtime.
// The local runtime (test/support/service.ts) overwrites these before it loads any handler.
process.env.TABLE_NAME ??= 'aos-test';
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.SIGNING_SEED ??= 'test-signing-seed-0123456789abcdefghijklmnopqrstuvwxyz';
process.env.LOG_LEVEL ??= 'SILENT';
// Lambda runs Node 22+; the SDK's notice that Node 20 support ends is noise on this machine.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
