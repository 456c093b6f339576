import { LitElement, css, html } from 'lit';
import { consoleStyles } from './console-styles.ts';

/**
 * Text to paste elsewhere (a snippet, code) with a Copy button under it.
 * The button writes the slotted content's text to the clipboard (Clipboard
 * API) and says "Copied" in a status region; where the clipboard cannot be
 * written (no secure context, permission refused), it selects the text
 * instead and says to copy it by hand, so Ctrl+C (⌘C) finishes the job.
 *
 * @tagname kb-copyable-text
 * @summary A block of text with a Copy button.
 * @slot - The text to copy, e.g. a `<pre>`; its `textContent` is copied.
 */
export class KbCopyableText extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      .copy {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
        margin-block: 0.25rem 0.75rem;
      }
    `,
  ];

  static override properties = {
    label: {},
    _outcome: { state: true },
  };

  /** The button's name, saying what it copies ("Copy snippet"). */
  declare label: string;
  declare private _outcome: 'copied' | 'failed' | undefined;

  constructor() {
    super();
    this.label = 'Copy';
  }

  /** The slotted content's text, as it would be pasted. */
  get text(): string {
    return this._slotted()
      .map((node) => node.textContent ?? '')
      .join('')
      .trim();
  }

  private _slotted(): Node[] {
    return this.shadowRoot?.querySelector('slot')?.assignedNodes({ flatten: true }) ?? [];
  }

  private async _copyText(): Promise<void> {
    try {
      if (!navigator.clipboard) throw new Error('No Clipboard API outside a secure context');
      await navigator.clipboard.writeText(this.text);
      this._outcome = 'copied';
    } catch {
      this._outcome = 'failed';
      this._selectText();
    }
  }

  /** Selects the slotted text, for copying by hand. */
  private _selectText(): void {
    const nodes = this._slotted();
    const first = nodes[0];
    const last = nodes.at(-1);
    const selection = getSelection();
    if (!first || !last || !selection) return;
    const range = document.createRange();
    range.setStartBefore(first);
    range.setEndAfter(last);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  override render() {
    return html`<slot @slotchange=${() => (this._outcome = undefined)}></slot>
      <p class="copy">
        <button type="button" class="secondary" @click=${this._copyText}>${this.label}</button>
        <span role="status">${this._outcome === 'copied' ? 'Copied' : this._outcome === 'failed' ? 'Copy failed: the text is selected, copy it by hand' : ''}</span>
      </p>`;
  }
}
