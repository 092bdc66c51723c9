import chromium from '@sparticuz/chromium';
import type { LaunchOptions } from 'playwright-core';

/**
 * Arguments of @sparticuz/chromium's own list that a test must not run with: they switch off the
 * browser's same-origin and mixed-content rules the console is tested against, or run everything in
 * one process, which several pages at once do not survive.
 */
const UNWANTED = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process', '--disable-site-isolation-trials']);

/**
 * How to launch the Chromium that @sparticuz/chromium ships inside its npm package (unpacked to the
 * temporary directory on first use): no browser download, no system packages. Background networking
 * is off, since this machine reaches no network and a test must not depend on one.
 */
export async function chromiumLaunchOptions(): Promise<LaunchOptions> {
  return {
    executablePath: await chromium.executablePath(),
    args: [
      ...chromium.args.filter((arg) => !UNWANTED.has(arg) && !arg.startsWith('--headless')),
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--metrics-recording-only',
    ],
    headless: true,
  };
}
