export interface LocalServiceBuild {
  /** The build's directory (under node_modules/.cache/aos-local-service). */
  dir: string;
  /** Each entry point's built module, in the order given. */
  entries: string[];
  builtInMs: number;
}

export function buildLocalService(entryPoints: readonly string[]): Promise<LocalServiceBuild>;
