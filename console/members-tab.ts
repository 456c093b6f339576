import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { ConsoleMember } from '../protocol/console-protocol.ts';
import { ROLES, type Role } from '../protocol/workspace-terms.ts';
import { consoleStyles } from './console-styles.ts';

/**
 * The Members tab: who belongs to a knowledge base and with which role.
 * Owners change a role with a labelled select per member, and remove a
 * member with "Remove", which asks for a second click ("Confirm remove" /
 * "Cancel") like the Developers tab's Revoke. The server refuses a change or
 * removal that would leave no owner, and its sentence is shown. A removed
 * member's tokens stop working at once (DESIGN.md "Tokens and origins").
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
    return html`<span class="actions">
      <button type="button" ?disabled=${this._busy} aria-label="Confirm remove ${member.email}" @click=${() => this._removeMember(member)}>
        Confirm remove
      </button>
      <button type="button" class="secondary" @click=${() => (this._confirming = undefined)}>Cancel</button>
    </span>`;
  }

  override render() {
    return html`
      <h2>Members</h2>
      <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
      <p role="status">${this._status ?? nothing}</p>
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
                  <td data-label="Email">${member.email}</td>
                  <td data-label="Role">
                    ${this.canManage
                      ? html`<label for="role-${member.user_id}">Role of ${member.email}</label>
                          <select id="role-${member.user_id}" @change=${(event: Event) => this._changeRole(member, event)}>
                            ${ROLES.map((role) => html`<option value=${role} ?selected=${role === member.role}>${role}</option>`)}
                          </select>`
                      : member.role}
                  </td>
                  ${this.canManage ? html`<td data-label="Actions">${this._renderRemove(member)}</td>` : nothing}
                </tr>`,
              )}
            </tbody>
          </table>`}
    `;
  }
}
