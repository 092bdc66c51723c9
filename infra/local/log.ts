export type Log = (line: string) => void;

/** An error for the log: its stack when it has one. */
export const errorText = (err: unknown): string => (err instanceof Error ? (err.stack ?? err.message) : String(err));
