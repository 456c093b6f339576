/**
 * Entry of the widget bundles (`dist/kb-widget.js` for a plain script tag,
 * `dist/kb-widget.mjs` as an ES module): registers `<kb-widget>` and exports
 * its class, events and strings for pages that script it.
 */
import { defineKbWidget } from './define.ts';

defineKbWidget();

export { KbWidget } from './kb-widget.ts';
export { defineKbWidget, TAG_NAME } from './define.ts';
export { KbWidgetAnswerEvent, KbWidgetErrorEvent, KbWidgetQuestionEvent, KbWidgetToggleEvent } from './kb-widget-events.ts';
export { DEFAULT_STRINGS, type WidgetStrings } from './widget-strings.ts';
