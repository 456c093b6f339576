import { html, svg, type SVGTemplateResult, type TemplateResult } from 'lit';

/**
 * The widget's icons as inline SVG, drawn in the text's colour
 * (`currentColor`) at the text's size, so a page's fonts cannot turn them
 * into emoji or missing glyphs and they follow the theme. Each is
 * decorative (`aria-hidden`): the control that shows one is named by its
 * `aria-label` or its visible text.
 *
 * Paths on a 24 × 24 grid (one path each, to a tenth of a unit, to keep
 * the bundle small), stroked 2 wide with round caps and joins:
 * `thumbs-up` from Lucide (https://lucide.dev, ISC licence, copyright
 * Lucide Contributors), turned half a turn for `thumbs-down` (as Lucide's
 * own is); `close` and `arrow-down` are the plain strokes of Lucide's `x`
 * and `arrow-down`.
 */
const THUMBS_UP = svg`<path
  d="M7 10v12m8-16.1-1 4.1h5.8a2 2 0 0 1 1.9 2.6l-2.3 8a2 2 0 0 1-1.9 1.4H4a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h2.8a2 2 0 0 0 1.8-1.1L12 2a3.1 3.1 0 0 1 3 3.9Z"
/>`;

const ICON_PATHS = {
  close: svg`<path d="M18 6 6 18M6 6l12 12" />`,
  'arrow-down': svg`<path d="M12 5v14m7-7-7 7-7-7" />`,
  'thumbs-up': THUMBS_UP,
  'thumbs-down': svg`<g transform="rotate(180 12 12)">${THUMBS_UP}</g>`,
} satisfies Record<string, SVGTemplateResult>;

/** Name of one of the widget's icons. */
export type IconName = keyof typeof ICON_PATHS;

/**
 * An icon as an `<svg class="icon">` element, hidden from assistive
 * technology; styled by the widget's `.icon` rule (1.15em square).
 *
 * @param name which icon
 */
export function icon(name: IconName): TemplateResult {
  return html`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${ICON_PATHS[name]}</svg>`;
}
