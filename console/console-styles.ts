import { css } from 'lit';

/** Shared look of the console pages: readable type, visible focus, labelled form rows, plain tables. */
export const consoleStyles = css`
  :host {
    display: block;
    /* Narrow layouts follow the element's own width (a side panel as a phone). */
    container-type: inline-size;
    font-family: system-ui, -apple-system, 'Segoe UI', sans-serif;
    font-size: 15px;
    line-height: 1.5;
    color: #1d1d1f;
    /* Long words (paths, URLs, e-mail addresses) break rather than widen the page. */
    overflow-wrap: break-word;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  h1,
  h2,
  h3 {
    line-height: 1.25;
  }
  label {
    display: block;
    font-weight: 600;
    margin-block: 0.75rem 0.25rem;
  }
  /* A checkbox's label, beside it. */
  label.inline {
    display: inline;
    font-weight: normal;
    margin: 0 0 0 0.35rem;
  }
  input[type='email'],
  input[type='password'],
  input[type='number'],
  input[type='text'],
  textarea,
  select {
    font: inherit;
    padding: 0.4rem 0.5rem;
    border: 1px solid #5e6470;
    border-radius: 6px;
    min-width: min(24rem, 100%);
  }
  fieldset {
    border: 1px solid #c4c8d0;
    border-radius: 6px;
    margin-block: 0.75rem;
  }
  fieldset label {
    display: inline;
    font-weight: normal;
    margin: 0 1rem 0 0.25rem;
  }
  legend {
    font-weight: 600;
  }
  button {
    font: inherit;
    padding: 0.4rem 0.9rem;
    border-radius: 6px;
    border: 1px solid #1a5fb4;
    background: #1a5fb4;
    color: #ffffff;
    cursor: pointer;
  }
  button.secondary {
    background: #ffffff;
    color: #1a5fb4;
  }
  button:disabled {
    opacity: 0.6;
    cursor: default;
  }
  :focus-visible {
    outline: 3px solid #1a5fb4;
    outline-offset: 2px;
  }
  a {
    color: #1a5fb4;
  }
  .hint {
    color: #5e6470;
    margin: 0.25rem 0;
  }
  .error {
    color: #a51d2d;
  }
  table {
    border-collapse: collapse;
    margin-block: 0.75rem;
  }
  th,
  td {
    text-align: start;
    padding: 0.35rem 0.75rem 0.35rem 0;
    border-bottom: 1px solid #c4c8d0;
    vertical-align: top;
  }
  code,
  pre {
    font-family: ui-monospace, 'SFMono-Regular', Menlo, monospace;
    font-size: 0.9em;
  }
  /* A token or path may sit in a flex row or a table cell, which size to their longest word. */
  code {
    overflow-wrap: anywhere;
  }
  pre {
    white-space: pre-wrap;
    word-break: break-all;
    background: #f3f4f6;
    padding: 0.75rem;
    border-radius: 6px;
  }
  /*
   * A table of class "reflow" becomes one block per row when the element is
   * narrow (a 360 px phone): each cell on its own line, named by its
   * data-label, so no column is pushed off screen.
   */
  @container (max-width: 40rem) {
    table.reflow,
    table.reflow tbody,
    table.reflow tr,
    table.reflow td {
      display: block;
      inline-size: 100%;
    }
    table.reflow thead {
      position: absolute;
      inline-size: 1px;
      block-size: 1px;
      overflow: hidden;
      clip-path: inset(50%);
    }
    table.reflow tr {
      border-bottom: 1px solid #c4c8d0;
      padding-block: 0.5rem;
    }
    table.reflow td {
      border: 0;
      padding: 0.15rem 0;
      overflow-wrap: anywhere;
    }
    table.reflow td[data-label]::before {
      content: attr(data-label);
      display: block;
      font-weight: 600;
      font-size: 0.85em;
      color: #5e6470;
    }
  }
`;
