import { describe, expect, it } from 'vitest';
import { withoutCitationMarkers } from './answer-text.ts';

describe('withoutCitationMarkers', () => {
  it('removes markers placed before closing punctuation and between runs', () => {
    expect(withoutCitationMarkers('Paris is the capital [1]. It has 2M people [2].')).toBe(
      'Paris is the capital. It has 2M people.',
    );
  });

  it('keeps escaped bracketed numbers as the reader sees them', () => {
    expect(withoutCitationMarkers('See reference \\[2] in the paper [1].')).toBe('See reference [2] in the paper.');
  });
});
