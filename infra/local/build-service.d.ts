export interface LocalServiceBuild {
  /** The build's directory (under node_modules/.cache/aos-local-service). */
  dir: string;
  /** Each entry point's built module, in the order given. */
  entries: string[];
  builtInMs: number;
}

export function buildLocalService(entryPoints: readonly string[]): Promise<LocalServiceBuild>;

/** Marks the build a service runs from as used, every day it runs, so that no other start removes it. */
export function keepInUse(dir: string): void;
