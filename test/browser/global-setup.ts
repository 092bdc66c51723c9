import { type BrowserServer, chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { ensureConsoleBuildApart } from '../../console/build.ts';
import { chromiumLaunchOptions } from '../support/chromium.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    browserWsEndpoint: string;
    consoleDir: string;
  }
}

let server: BrowserServer | undefined;

/**
 * Once per run, for every browser test file: the console's production build (made only if its
 * sources changed) and one Chromium, which each file connects to. A failure here fails the run: the
 * browser tests are never skipped.
 */
export async function setup(project: TestProject) {
  const [build, options] = await Promise.all([ensureConsoleBuildApart(), chromiumLaunchOptions()]);
  server = await chromium.launchServer(options);
  project.provide('browserWsEndpoint', server.wsEndpoint());
  project.provide('consoleDir', build.dir);
}

export async function teardown() {
  await server?.close();
}
