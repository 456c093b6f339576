import { css } from 'lit';

/**
 * The styles of `<kb-widget>` (kb-widget.ts), in its shadow root. Pages
 * theme it through the custom properties documented on the element
 * (`--kb-widget-accent`, `--kb-widget-font`, ...), never by reaching inside.
 */
export const kbWidgetStyles = css`
  :host {
    --_accent: var(--kb-widget-accent, #1a5fb4);
    --_accent-text: var(--kb-widget-accent-text, #ffffff);
    --_background: var(--kb-widget-background, #ffffff);
    --_text: var(--kb-widget-text, #1d1d1f);
    --_muted: var(--kb-widget-muted, #5e6470);
    --_radius: var(--kb-widget-radius, 12px);
    display: block;
    font-family: var(--kb-widget-font, system-ui, -apple-system, 'Segoe UI', sans-serif);
    font-size: 15px;
    line-height: 1.5;
    color: var(--_text);
    text-align: start;
  }
  :host([theme='dark']) {
    --_accent: var(--kb-widget-accent, #78aeed);
    --_accent-text: var(--kb-widget-accent-text, #0b1a2e);
    --_background: var(--kb-widget-background, #1f2227);
    --_text: var(--kb-widget-text, #eef0f3);
    --_muted: var(--kb-widget-muted, #a4abb8);
  }
  @media (prefers-color-scheme: dark) {
    :host([theme='auto']) {
      --_accent: var(--kb-widget-accent, #78aeed);
      --_accent-text: var(--kb-widget-accent-text, #0b1a2e);
      --_background: var(--kb-widget-background, #1f2227);
      --_text: var(--kb-widget-text, #eef0f3);
      --_muted: var(--kb-widget-muted, #a4abb8);
    }
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  [hidden] {
    display: none !important;
  }
  button {
    font: inherit;
    cursor: pointer;
  }
  :focus-visible {
    outline: 3px solid var(--_accent);
    outline-offset: 2px;
  }
  .launcher {
    position: fixed;
    inset-block-end: 20px;
    inset-inline-end: 20px;
    z-index: var(--kb-widget-z-index, 2147483000);
    border: 0;
    border-radius: 999px;
    padding: 12px 18px;
    background: var(--_accent);
    color: var(--_accent-text);
    box-shadow: 0 4px 14px rgb(0 0 0 / 0.25);
  }
  .panel {
    display: flex;
    flex-direction: column;
    background: var(--_background);
    color: var(--_text);
    border: 1px solid color-mix(in srgb, var(--_muted) 40%, transparent);
    border-radius: var(--_radius);
    overflow: hidden;
  }
  :host([mode='inline']) .panel {
    min-height: 320px;
    max-height: var(--kb-widget-height, 600px);
  }
  :host(:not([mode='inline'])) .panel {
    position: fixed;
    inset-block-end: 80px;
    inset-inline-end: 20px;
    z-index: var(--kb-widget-z-index, 2147483000);
    width: min(var(--kb-widget-width, 400px), calc(100vw - 24px));
    height: min(var(--kb-widget-height, 600px), calc(100vh - 100px));
    box-shadow: 0 10px 30px rgb(0 0 0 / 0.3);
  }
  @media (width < 480px) {
    :host(:not([mode='inline'])) .panel {
      inset: 0;
      width: auto;
      height: auto;
      border: 0;
      border-radius: 0;
    }
    .launcher[aria-expanded='true'] {
      display: none;
    }
  }
  .header {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 8px;
    padding: 10px 14px;
    border-block-end: 1px solid color-mix(in srgb, var(--_muted) 30%, transparent);
  }
  h2 {
    flex: 1;
    margin: 0;
    font-size: 1.05em;
  }
  h3 {
    margin: 10px 0 4px;
    font-size: 0.85em;
    color: var(--_muted);
    font-weight: 600;
  }
  .close,
  .new {
    border: 0;
    background: transparent;
    color: inherit;
    padding: 4px 8px;
    border-radius: 6px;
  }
  .transcript {
    position: relative;
    flex: 1;
    overflow-y: auto;
    padding: 12px 14px;
    display: flex;
    flex-direction: column;
    gap: 12px;
  }
  .question {
    align-self: flex-end;
    max-width: 85%;
    margin: 0;
    padding: 8px 12px;
    border-radius: var(--_radius);
    background: color-mix(in srgb, var(--_accent) 15%, var(--_background));
  }
  .answer {
    overflow-wrap: anywhere;
  }
  .answer p {
    margin: 0 0 8px;
  }
  .answer pre {
    overflow-x: auto;
    padding: 8px;
    border-radius: 6px;
    background: color-mix(in srgb, var(--_muted) 15%, var(--_background));
  }
  code {
    font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace;
    font-size: 0.9em;
  }
  a {
    color: var(--_accent);
  }
  .citation {
    text-decoration: none;
    font-size: 0.85em;
    vertical-align: super;
  }
  .status,
  .notice {
    color: var(--_muted);
    font-size: 0.9em;
    margin: 4px 0;
  }
  .notice {
    color: inherit;
    border-inline-start: 3px solid #c01c28;
    padding-inline-start: 8px;
  }
  .notice p,
  .greeting {
    margin: 0 0 6px;
  }
  .sources {
    margin: 4px 0 0;
    padding-inline-start: 20px;
    font-size: 0.9em;
  }
  .sources li {
    margin-block-end: 4px;
  }
  .sources :focus {
    background: color-mix(in srgb, var(--_accent) 15%, transparent);
  }
  .sources summary {
    padding-block: 2px;
  }
  .title {
    font-weight: 600;
  }
  .sources a,
  .actions a {
    display: inline-flex;
    align-items: center;
    min-height: 28px;
  }
  mark {
    background: color-mix(in srgb, var(--_accent) 22%, var(--_background));
    color: var(--_text);
  }
  blockquote {
    margin: 4px 0;
    padding-inline-start: 8px;
    border-inline-start: 2px solid var(--_muted);
    color: var(--_muted);
    max-height: 16em;
    overflow-y: auto;
  }
  blockquote p,
  blockquote ul,
  blockquote pre {
    margin: 0 0 6px;
  }
  summary {
    cursor: pointer;
  }
  .chips,
  .actions {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px;
  }
  .chip,
  .retry,
  .copy,
  .rate,
  .jump {
    border: 1px solid var(--_accent);
    background: var(--_background);
    color: var(--_accent);
    border-radius: 999px;
    padding: 4px 10px;
    font-size: 0.9em;
    text-align: start;
  }
  .rate[aria-pressed='true'] {
    border-color: var(--_accent);
    background: color-mix(in srgb, var(--_accent) 22%, var(--_background));
  }
  .report {
    display: block;
    border: 0;
    background: none;
    color: var(--_muted);
    padding: 4px 0;
    text-decoration: underline;
    font-size: 0.9em;
  }
  .feedback {
    display: block;
    margin: 6px 0;
    padding: 8px 10px;
    border: 1px solid color-mix(in srgb, var(--_muted) 40%, transparent);
    border-radius: 8px;
    font-size: 0.9em;
  }
  fieldset {
    border: 0;
    margin: 0 0 6px;
    padding: 0;
  }
  .feedback label {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px;
    min-height: 28px;
    width: 100%;
  }
  [type='radio'] {
    width: 24px;
    height: 24px;
    margin: 0;
    accent-color: var(--_accent);
  }
  .retry[aria-disabled] {
    border-color: var(--_muted);
    color: var(--_muted);
    cursor: default;
  }
  .code {
    text-align: end;
  }
  .code pre {
    text-align: start;
    margin-block-start: 4px;
  }
  /* Between the transcript and the field, where it covers nothing. */
  .jump {
    margin: 6px auto 0;
  }
  form {
    display: flex;
    gap: 8px;
    padding: 10px 14px;
    border-block-start: 1px solid color-mix(in srgb, var(--_muted) 30%, transparent);
  }
  [part='input'],
  textarea {
    flex: 1;
    min-width: 0;
    font: inherit;
    padding: 8px 10px;
    border: 1px solid var(--_muted);
    border-radius: 8px;
    background: var(--_background);
    color: var(--_text);
  }
  textarea {
    flex-basis: 100%;
    min-height: 4em;
  }
  .submit {
    border: 0;
    border-radius: 8px;
    padding: 8px 14px;
    background: var(--_accent);
    color: var(--_accent-text);
  }
  /* An inline SVG icon (widget-icons.ts), in the text's colour and size. */
  .icon {
    inline-size: 1.15em;
    block-size: 1.15em;
    vertical-align: -0.2em;
    fill: none;
    stroke: currentColor;
    stroke-width: 2;
    stroke-linecap: round;
    stroke-linejoin: round;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  @media (width < 480px), (pointer: coarse) {
    button,
    [part='input'],
    .feedback label,
    summary,
    .sources a,
    .actions a {
      min-height: 44px;
      min-width: 44px;
    }
    summary {
      padding-block: 10px;
    }
  }
  @media (prefers-reduced-motion: no-preference) {
    :host(:not([mode='inline'])) .panel {
      animation: kb-widget-in 160ms ease-out;
    }
    @keyframes kb-widget-in {
      from {
        opacity: 0;
        transform: translateY(8px);
      }
    }
  }
`;
