/*
 * uPlot formats numbers with `new Intl.NumberFormat(navigator.language)` as its module loads. A browser
 * can report a language tag Intl refuses (Chromium started under LANG=C.UTF-8 reports `en-US@posix`):
 * that threw while the chart's chunk loaded and took down every page with a chart. Such a browser's
 * language is read as the part of its tag Intl takes, else `en-US`. Imported by the entry (main.tsx): a
 * chart's chunk imports uPlot's chunk, which runs before any code of its own.
 */
function usable(tag: string): boolean {
  try {
    new Intl.NumberFormat(tag);
    return true;
  } catch {
    return false;
  }
}

if (!usable(navigator.language)) {
  const base = navigator.language.split(/[@._]/)[0] ?? '';
  Object.defineProperty(navigator, 'language', { value: usable(base) ? base : 'en-US', configurable: true });
}
