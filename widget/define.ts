import { KbWidget } from './kb-widget.ts';

/** Tag name of the element. */
export const TAG_NAME = 'kb-widget';

/**
 * Registers `<kb-widget>` once. Registration is idempotent: a page that loads
 * the script twice keeps the first definition and gets no exception.
 */
export function defineKbWidget(): void {
  if (!customElements.get(TAG_NAME)) customElements.define(TAG_NAME, KbWidget);
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-widget': KbWidget;
  }
}
