import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { ConsoleMember, Invitation } from '../protocol/console-protocol.ts';
import { ROLES, type Role } from '../protocol/workspace-terms.ts';
import { confirmActions } from './confirm-actions.ts';
import { consoleStyles } from './console-styles.ts';

/**
 * The Members tab: who belongs to a knowledge base and with which role.
 * Owners change a role with a labelled select per member, and remove a
 * member with "Remove", which asks for a second click ("Confirm remove" /
 * "Cancel") like the Developers tab's Revoke. The server refuses a change or
 * removal that would leave no owner, and its sentence is shown. A removed
 * member's tokens stop working at once (docs/design-decisions.md "Tokens and origins").
 *
 * Owners also invite a person by email with a role ("Invite a person"). No
 * mail is sent: when the person has no password yet, the tab shows their
 * one-time set-password link with a "Copy link" button, says when it
 * expires, and that it is to be passed on privately; a person whose account
 * has a password is simply added, and the tab says no link is needed.
 * Members who have not set a password yet are marked "invited, no password
 * yet", and owners can make them a new link ("New link"), which replaces the
 * earlier ones.
 *
 * @tagname kb-members-tab
 * @summary Members and roles; owners manage them.
 */
export class KbMembersTab extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      .actions {
        display: flex;
        gap: 0.5rem;
      }
      .pending {
        display: inline-block;
        margin-inline-start: 0.5rem;
        padding: 0 0.4rem;
        border: 1px solid #5e6470;
        border-radius: 4px;
        font-size: 0.85em;
        color: #5e6470;
      }
      form,
      .invited {
        margin-block: 1rem;
        padding: 0.75rem 1rem;
        border: 1px solid #c4c8d0;
        border-radius: 6px;
      }
      .invited input {
        inline-size: 100%;
      }
      .link-row {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    kbId: { attribute: 'kb-id' },
    canManage: { attribute: 'can-manage', type: Boolean },
    _members: { state: true },
    _error: { state: true },
    _status: { state: true },
    _confirming: { state: true },
    _busy: { state: true },
    _invited: { state: true },
    _inviteError: { state: true },
    _copied: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** Knowledge base whose members are listed. */
  declare kbId: string;
  /** Whether the person may change roles and remove members (owners). */
  declare canManage: boolean;
  declare private _members: ConsoleMember[] | undefined;
  declare private _error: string | undefined;
  declare private _status: string | undefined;
  /** User id of the member whose removal awaits confirmation. */
  declare private _confirming: string | undefined;
  declare private _busy: boolean;
  /** The last invitation or new link, shown until the next one; `renewed` for a new link of a listed member. */
  declare private _invited: { invitation: Invitation; renewed: boolean } | undefined;
  declare private _inviteError: string | undefined;
  declare private _copied: 'copied' | 'failed' | undefined;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.kbId = '';
    this.canManage = false;
    this._busy = false;
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('kbId') && this.kbId !== '') void this._loadMembers();
  }

  private async _loadMembers(): Promise<void> {
    try {
      this._members = await this.client.listMembers(this.kbId);
      this._error = undefined;
    } catch (error) {
      this._error = `The members could not be loaded: ${(error as Error).message}`;
    }
  }

  private async _changeRole(member: ConsoleMember, event: Event): Promise<void> {
    const select = event.currentTarget as HTMLSelectElement;
    const role = select.value as Role;
    this._status = undefined;
    try {
      await this.client.setMemberRole(this.kbId, member.user_id, role);
      this._error = undefined;
      this._status = `${member.email} is now ${role}.`;
    } catch (error) {
      this._error = `The role of ${member.email} was not changed: ${(error as Error).message}`;
      select.value = member.role;
    }
    await this._loadMembers();
  }

  private async _removeMember(member: ConsoleMember): Promise<void> {
    this._status = undefined;
    this._busy = true;
    try {
      await this.client.removeMember(this.kbId, member.user_id);
      this._error = undefined;
      this._status = `${member.email} was removed from this knowledge base.`;
      this._confirming = undefined;
      await this._loadMembers();
    } catch (error) {
      this._error = `${member.email} was not removed: ${(error as Error).message}`;
      this._confirming = undefined;
    } finally {
      this._busy = false;
    }
  }

  private async _invite(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const email = String(data.get('email') ?? '').trim();
    const role = String(data.get('role') ?? 'reader') as Role;
    this._busy = true;
    this._inviteError = undefined;
    this._status = undefined;
    try {
      const invitation = await this.client.invite(this.kbId, email, role);
      this._showInvited(invitation, false);
      form.reset();
      await this._loadMembers();
    } catch (error) {
      this._inviteError = `${email} was not invited: ${(error as Error).message}`;
    } finally {
      this._busy = false;
    }
  }

  private async _createPasswordLink(member: ConsoleMember): Promise<void> {
    this._busy = true;
    this._status = undefined;
    try {
      this._showInvited(await this.client.createPasswordLink(this.kbId, member.user_id), true);
      this._error = undefined;
    } catch (error) {
      this._error = `No new link was made for ${member.email}: ${(error as Error).message}`;
    } finally {
      this._busy = false;
    }
  }

  /** Shows an invitation's outcome and moves focus to it, so a keyboard or screen reader user lands on the link. */
  private _showInvited(invitation: Invitation, renewed: boolean): void {
    this._invited = { invitation, renewed };
    this._copied = undefined;
    void this.updateComplete.then(() => this.shadowRoot?.querySelector<HTMLElement>('#invited-heading')?.focus());
  }

  private async _copyLink(): Promise<void> {
    const url = this._invited?.invitation.set_password_url;
    if (url === undefined) return;
    try {
      await navigator.clipboard.writeText(url);
      this._copied = 'copied';
    } catch {
      this._copied = 'failed';
      this.shadowRoot?.querySelector<HTMLInputElement>('#invited-link')?.select();
    }
  }

  private _renderInviteForm() {
    return html`<form @submit=${this._invite} aria-labelledby="invite-heading">
      <h3 id="invite-heading">Invite a person</h3>
      <p class="hint">No mail is sent: a person without an account gets a one-time link to choose a password, which you pass on to them.</p>
      <label for="invite-email">Email</label>
      <input id="invite-email" name="email" type="email" autocomplete="off" required />
      <label for="invite-role">Role</label>
      <select id="invite-role" name="role">
        ${ROLES.map((role) => html`<option value=${role} ?selected=${role === 'reader'}>${role}</option>`)}
      </select>
      <div role="alert" class="error">${this._inviteError ? html`<p>${this._inviteError}</p>` : nothing}</div>
      <p><button type="submit" ?disabled=${this._busy}>Invite</button></p>
    </form>`;
  }

  private _renderInvited({ invitation, renewed }: { invitation: Invitation; renewed: boolean }) {
    const { email, role, set_password_url: url, expires_at: expiresAt } = invitation;
    if (url === undefined) {
      return html`<section class="invited" aria-labelledby="invited-heading">
        <h3 id="invited-heading" tabindex="-1">${email} was added as ${role}</h3>
        ${invitation.pending
          ? html`<p>
              They have not set a password yet, and they also belong to a knowledge base you do not own, so no link was made here: the
              link from their earlier invitation still works, or an owner of all their knowledge bases can make a new one.
            </p>`
          : html`<p>They already have an account with a password, so no link is needed: they sign in as usual and find this knowledge base there.</p>`}
      </section>`;
    }
    return html`<section class="invited" aria-labelledby="invited-heading">
      <h3 id="invited-heading" tabindex="-1">${renewed ? `A new set-password link for ${email}` : `${email} was invited as ${role}`}</h3>
      <p>
        No mail is sent: copy this link and pass it on to ${email} privately, since whoever opens it can choose the password.
        It works once and expires ${expiresAt === undefined ? 'in a few days' : describeExpiry(expiresAt)}.${renewed
          ? ' Earlier links for them no longer work.'
          : ''}
      </p>
      <label for="invited-link">Set-password link for ${email}</label>
      <div class="link-row">
        <input id="invited-link" type="text" readonly .value=${url} />
        <button type="button" class="secondary" @click=${this._copyLink}>Copy link</button>
        <span role="status"
          >${this._copied === 'copied' ? 'Copied' : this._copied === 'failed' ? 'Copy failed: the link is selected, copy it by hand' : ''}</span
        >
      </div>
    </section>`;
  }

  private _renderRemove(member: ConsoleMember) {
    if (this._confirming !== member.user_id) {
      return html`<button
        type="button"
        class="secondary"
        aria-label="Remove ${member.email}"
        @click=${() => {
          this._confirming = member.user_id;
          this._status = undefined;
        }}
      >
        Remove
      </button>`;
    }
    return confirmActions({
      verb: 'remove',
      doing: 'removing',
      target: member.email,
      busy: this._busy,
      confirm: () => void this._removeMember(member),
      cancel: () => (this._confirming = undefined),
    });
  }

  override render() {
    return html`
      <h2>Members</h2>
      <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
      <p role="status">${this._status ?? nothing}</p>
      ${this.canManage ? this._renderInviteForm() : nothing} ${this._invited ? this._renderInvited(this._invited) : nothing}
      ${this._members === undefined
        ? nothing
        : html`<table class="reflow">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                ${this.canManage ? html`<th scope="col">Actions</th>` : nothing}
              </tr>
            </thead>
            <tbody>
              ${this._members.map(
                (member) => html`<tr data-user-id=${member.user_id}>
                  <td data-label="Email">${member.email}${member.pending ? html` <span class="pending">invited, no password yet</span>` : nothing}</td>
                  <td data-label="Role">
                    ${this.canManage
                      ? html`<label for="role-${member.user_id}">Role of ${member.email}</label>
                          <select id="role-${member.user_id}" @change=${(event: Event) => this._changeRole(member, event)}>
                            ${ROLES.map((role) => html`<option value=${role} ?selected=${role === member.role}>${role}</option>`)}
                          </select>`
                      : member.role}
                  </td>
                  ${this.canManage
                    ? html`<td data-label="Actions">
                        <span class="actions">
                          ${member.pending
                            ? html`<button
                                type="button"
                                class="secondary"
                                ?disabled=${this._busy}
                                aria-label="New link for ${member.email}"
                                @click=${() => this._createPasswordLink(member)}
                              >
                                New link
                              </button>`
                            : nothing}
                          ${this._renderRemove(member)}
                        </span>
                      </td>`
                    : nothing}
                </tr>`,
              )}
            </tbody>
          </table>`}
    `;
  }
}

/** When a link expires, for a sentence: `on 2026-01-22 12:00 UTC (in 7 days)`. */
function describeExpiry(expiresAt: string): string {
  const at = new Date(expiresAt);
  const days = Math.round((at.getTime() - Date.now()) / 86_400_000);
  const when = `on ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return days >= 1 ? `${when} (in ${days} ${days === 1 ? 'day' : 'days'})` : when;
}
