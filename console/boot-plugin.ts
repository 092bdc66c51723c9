import { resolve } from 'node:path';
import type { Plugin, Rolldown } from 'vite';
import { REFRESH_REQUEST } from './src/auth/refresh-request.ts';
import { BOOT_DATA_ID, type BootData } from './src/boot-data.ts';
import { API_BASE_URL, type PageEntry, PUBLIC_PAGES, pathPattern, SIGNED_IN_PAGES } from './src/page-table.ts';

const BOOT_MODULE = 'src/boot.ts';

/**
 * Builds the boot script (src/boot.ts) as a file of its own and puts it in index.html, loaded async
 * beside the console's code, with what it needs to know as JSON before it: for each page of
 * page-table.ts, the files its route loads besides those index.html loads anyway, and whether it
 * needs a sign-in. A landing page's chunk then loads with the entry instead of after it, and its
 * sign-in's refresh starts before the entry has been parsed.
 */
export function bootScript(): Plugin {
  let root = '';
  let base = '/';
  return {
    name: 'aos-boot-script',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      base = config.base;
    },
    buildStart() {
      this.emitFile({ type: 'chunk', id: resolve(root, BOOT_MODULE), name: 'boot' });
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle, chunk: entry }) {
        if (!bundle || !entry) throw new Error('the boot script is put in the built index.html only');
        const chunks = new Map(Object.values(bundle).flatMap((output) => (output.type === 'chunk' ? [[output.fileName, output] as const] : [])));
        const byModule = new Map([...chunks.values()].flatMap((chunk) => (chunk.facadeModuleId ? [[chunk.facadeModuleId, chunk] as const] : [])));

        /** A chunk's files with everything it imports statically: JavaScript first, then styles. */
        const filesOf = (start: Rolldown.OutputChunk): string[] => {
          const scripts = new Set<string>();
          const styles = new Set<string>();
          const visit = (chunk: Rolldown.OutputChunk) => {
            if (scripts.has(chunk.fileName)) return;
            scripts.add(chunk.fileName);
            for (const css of chunk.viteMetadata?.importedCss ?? []) styles.add(css);
            for (const name of chunk.imports) visit(chunks.get(name)!);
          };
          visit(start);
          return [...scripts, ...styles];
        };
        const loadedAnyway = new Set(filesOf(entry));
        const page = ({ path, module, firstRequest }: PageEntry, signedIn: boolean) => {
          const chunk = byModule.get(resolve(root, 'src/pages', `${module}.tsx`));
          if (!chunk) throw new Error(`page-table.ts names ${module}, which the build has no chunk for`);
          return {
            pattern: pathPattern(path),
            signedIn,
            files: filesOf(chunk).flatMap((file) => (loadedAnyway.has(file) ? [] : [base + file])),
            ...(firstRequest ? { firstRequest: API_BASE_URL + firstRequest } : {}),
          };
        };
        const boot: BootData = {
          pages: [...PUBLIC_PAGES.map((p) => page(p, false)), ...SIGNED_IN_PAGES.map((p) => page(p, true))],
          refresh: REFRESH_REQUEST,
        };
        const script = byModule.get(resolve(root, BOOT_MODULE));
        if (!script) throw new Error(`the build has no chunk for ${BOOT_MODULE}`);
        return [
          // JSON is not run, so the CSP (script-src 'self') lets it be; `<` escaped so that it cannot end the element.
          { tag: 'script', attrs: { type: 'application/json', id: BOOT_DATA_ID }, children: JSON.stringify(boot).replaceAll('<', '\\u003c'), injectTo: 'head' },
          { tag: 'script', attrs: { type: 'module', async: true, src: base + script.fileName }, injectTo: 'head' },
        ];
      },
    },
  };
}
