import type { REFRESH_REQUEST } from './auth/refresh-request.ts';

/** The id of the JSON in index.html that tells the boot script what the build knows (boot-plugin.ts). */
export const BOOT_DATA_ID = 'aos-boot';

/** What the boot script (boot.ts) is told by the build. */
export interface BootData {
  /**
   * Each page: its path as a regular expression (case aside), whether it needs a sign-in, the files it
   * loads besides those index.html loads anyway (its route chunk, their imports, their styles), and the
   * URL of the API request it sends first when its own URL has no query (page-table.ts's `firstRequest`).
   */
  pages: Array<{ pattern: string; signedIn: boolean; files: string[]; firstRequest?: string }>;
  refresh: typeof REFRESH_REQUEST;
}
