/**
 * An answer's text as a reader sees it, for scoring against reference text:
 * without the `[n]` citation markers (protocol/citation-markers.ts) and with
 * quoted bracketed numbers unescaped (`\[2]` shows as `[2]`).
 *
 * @param answer answer text with markers
 * @returns the text without markers, whitespace collapsed
 */
export function withoutCitationMarkers(answer: string): string {
  return answer
    .replace(/\s*(?<!\\)\[\d+\]/g, '')
    .replace(/\\\[/g, '[')
    .replace(/\s+/g, ' ')
    .trim();
}
