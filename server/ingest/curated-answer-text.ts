import { findCitationMarkers } from '../../protocol/citation-markers.ts';

/**
 * A curated answer's text checked against its sources: `[n]` markers refer to
 * the n-th source (1-based), so every marker needs a source and, once the
 * text has markers, every source needs a marker. A text with sources and no
 * markers gets them appended (`… [1] [2]`), so a curated answer's citations
 * are always referenced, as the widget shows them (docs/specification.md "Citation").
 *
 * Used by `kb faq import` (ingest/faq-file.ts) and the console's Curated
 * answers tab (console-api/curated-answer-routes.ts).
 *
 * @param answer the answer as written
 * @param sourceCount how many sources the pair cites
 * @returns the answer to store
 * @throws CitationMarkerError saying which marker or source is wrong
 */
export function withCitationMarkers(answer: string, sourceCount: number): string {
  const markers = findCitationMarkers(answer);
  const bad = markers.find((marker) => marker < 1 || marker > sourceCount);
  if (bad !== undefined) throw new CitationMarkerError(`marker [${bad}] has no source ${bad}`);
  const unreferenced = Array.from({ length: sourceCount }, (_, index) => index + 1).filter((index) => !markers.includes(index));
  if (markers.length > 0 && unreferenced.length > 0) throw new CitationMarkerError(`source ${unreferenced[0]} is never referenced`);
  return markers.length === 0 && sourceCount > 0 ? `${answer} ${unreferenced.map((index) => `[${index}]`).join(' ')}` : answer;
}

/** A curated answer whose `[n]` markers do not match its sources. */
export class CitationMarkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CitationMarkerError';
  }
}
