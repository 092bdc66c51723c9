/** The make-believe AWS account and region everything local lives in (ARNs, SQS queue URLs, events). */
export const LOCAL_ACCOUNT = { region: 'us-east-1', accountId: '123456789012' } as const;

/** Dummy credentials: the SDK insists on some, the local servers check none. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
