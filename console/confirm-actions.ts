import { html, type TemplateResult } from 'lit';

/** What {@link confirmActions} asks to confirm. */
export interface ConfirmActionsOptions {
  /** The verb, lower case: `remove`, `revoke`. */
  verb: string;
  /** The verb's -ing form, for the Cancel button's name: `removing`, `revoking`. */
  doing: string;
  /** What it acts on, as the buttons' accessible names end: `guides/setup.md`, `dana@example.com`. */
  target: string;
  /** Disables the confirmation while a request runs. */
  busy: boolean;
  confirm: () => void;
  cancel: () => void;
}

/**
 * The second step of a destructive action in a console table row ("Remove"
 * → "Confirm remove" / "Cancel"): two buttons whose accessible names say
 * what they act on ("Confirm remove guides/setup.md", "Cancel removing
 * guides/setup.md"), so that a screen reader user in a list of rows knows
 * which row each belongs to, and whose visible text starts the name (WCAG
 * 2.5.3 Label in Name).
 */
export function confirmActions(options: ConfirmActionsOptions): TemplateResult {
  const { verb, doing, target } = options;
  return html`<span class="actions">
    <button type="button" ?disabled=${options.busy} aria-label="Confirm ${verb} ${target}" @click=${options.confirm}>Confirm ${verb}</button>
    <button type="button" class="secondary" aria-label="Cancel ${doing} ${target}" @click=${options.cancel}>Cancel</button>
  </span>`;
}
