/**
 * The bidirectional controls that reorder the text after them as it is shown: embeddings and overrides
 * (U+202A–U+202E) and isolates (U+2066–U+2069), those of "Trojan Source" (CVE-2021-42574). A span
 * named `tool \u202Eevil\u202C` would read "tool live".
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** Text from a sender with its bidirectional controls shown as what they are, e.g. ⟨U+202E⟩, rather than obeyed. */
export const showBidiControls = (text: string): string => text.replace(BIDI_CONTROLS, (control) => `⟨U+${control.codePointAt(0)!.toString(16).toUpperCase()}⟩`);

/**
 * A name or id from a sender amid the console's own words: its controls shown, and isolated (`<bdi>`)
 * so that right-to-left letters in it do not reorder what stands beside it.
 */
export function UserText({ text }: { text: string }) {
  return <bdi>{showBidiControls(text)}</bdi>;
}
