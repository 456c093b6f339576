import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { ConsoleMember, Invitation } from '../protocol/console-protocol.ts';
import { defineConsoleElements } from './define.ts';
import type { KbMembersTab } from './members-tab.ts';

/**
 * The Members tab in Chromium against a scripted console API: owners get a
 * two-step "Remove" per member ("Confirm remove" / "Cancel"), the server's
 * refusal to remove the last owner is shown in its words, and others see no
 * controls; owners invite by email and get the set-password link to copy,
 * or are told no link is needed; pending members are marked and get a new
 * link; axe finds no violation.
 */
defineConsoleElements();

const LAST_OWNER_DETAIL = 'Knowledge base "docs" needs at least one owner; make someone else owner first';

/** A console API holding a member list; refuses to remove the last owner as the server does. */
class ScriptedApi {
  members: ConsoleMember[] = [
    { user_id: 'usr_owner', email: 'owner@example.com', role: 'owner' },
    { user_id: 'usr_alice', email: 'alice@example.com', role: 'editor' },
    { user_id: 'usr_reader', email: 'reader@example.com', role: 'reader' },
  ];
  requests: { method: string; path: string; body?: unknown }[] = [];
  /** Emails of accounts that have a password: invited, they are added without a link. */
  accountsWithPassword = new Set(['carl@example.com']);
  links = 0;

  readonly fetch: FetchFunction = async (url, init) => {
    const method = init?.method ?? 'GET';
    const path = url.replace('/console/api/knowledge-bases/docs', '');
    const body = init?.body === undefined ? undefined : (JSON.parse(String(init.body)) as unknown);
    this.requests.push({ method, path, ...(body === undefined ? {} : { body }) });
    if (method === 'GET' && path === '/members') return Response.json({ members: this.members });
    if (method === 'POST' && path === '/invitations') {
      const { email, role } = body as { email: string; role: ConsoleMember['role'] };
      const existing = this.members.find((member) => member.email === email);
      if (existing) {
        const detail = `${email} is already a member of "docs" as ${existing.role}; change their role in the members list instead`;
        return Response.json({ type: 'urn:kb-widget:problem:conflict', title: 'Conflict', status: 409, code: 'conflict', detail }, { status: 409 });
      }
      const pending = !this.accountsWithPassword.has(email);
      const member: ConsoleMember = { user_id: `usr_${email.split('@')[0]}`, email, role, ...(pending ? { pending: true } : {}) };
      this.members = [...this.members, member];
      const invitation: Invitation = { user_id: member.user_id, email, role, pending, ...(pending ? this.#link() : {}) };
      return Response.json(invitation, { status: 201 });
    }
    const newLink = /^\/members\/([^/]+)\/password-link$/.exec(path);
    if (method === 'POST' && newLink) {
      const member = this.members.find((candidate) => candidate.user_id === decodeURIComponent(newLink[1]!))!;
      return Response.json({ user_id: member.user_id, email: member.email, role: member.role, pending: true, ...this.#link() } satisfies Invitation, { status: 201 });
    }
    const removal = /^\/members\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && removal) {
      const userId = decodeURIComponent(removal[1]!);
      const owners = this.members.filter((member) => member.role === 'owner');
      if (owners.length === 1 && owners[0]!.user_id === userId) {
        return Response.json({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'invalid_request', detail: LAST_OWNER_DETAIL }, { status: 400 });
      }
      this.members = this.members.filter((member) => member.user_id !== userId);
      return new Response(null, { status: 204 });
    }
    return Response.json({ status: 404, code: 'not_found', detail: `No route ${method} ${path}` }, { status: 404 });
  };

  #link(): { set_password_url: string; expires_at: string } {
    this.links += 1;
    return {
      set_password_url: `https://kb.example.com/console#/set-password/kbp_secret${this.links}`,
      expires_at: new Date(Date.now() + 7 * 24 * 60 * 60_000 + 60_000).toISOString(),
    };
  }
}

async function membersTab(api: ScriptedApi, canManage: boolean): Promise<KbMembersTab> {
  const element = await fixture<KbMembersTab>(
    html`<kb-members-tab .client=${new ConsoleClient({ fetch: api.fetch })} kb-id="docs" ?can-manage=${canManage}></kb-members-tab>`,
  );
  await waitUntil(() => element.shadowRoot!.querySelector('tbody tr') !== null, 'the members load');
  return element;
}

function buttonNamed(element: KbMembersTab, accessibleName: string): HTMLButtonElement | undefined {
  return [...element.shadowRoot!.querySelectorAll('button')].find(
    (candidate) => (candidate.getAttribute('aria-label') ?? candidate.textContent?.trim()) === accessibleName,
  );
}

function emails(element: KbMembersTab): string[] {
  return [...element.shadowRoot!.querySelectorAll('tbody tr td:first-child')].map((cell) => cell.textContent ?? '');
}

describe('kb-members-tab remove', () => {
  it('owner: Remove asks to confirm; Cancel keeps the member; Confirm remove removes them and says so', async () => {
    const api = new ScriptedApi();
    const element = await membersTab(api, true);
    const remove = buttonNamed(element, 'Remove alice@example.com')!;
    expect(remove.textContent?.trim()).to.equal('Remove');

    remove.click();
    await element.updateComplete;
    buttonNamed(element, 'Cancel removing alice@example.com')!.click();
    await element.updateComplete;
    expect(buttonNamed(element, 'Confirm remove alice@example.com')).to.equal(undefined);
    expect(api.requests.some((request) => request.method === 'DELETE')).to.equal(false);

    buttonNamed(element, 'Remove alice@example.com')!.click();
    await element.updateComplete;
    buttonNamed(element, 'Confirm remove alice@example.com')!.click();
    await waitUntil(() => !emails(element).includes('alice@example.com'), 'the list no longer shows alice');

    expect(api.requests.find((request) => request.method === 'DELETE')?.path).to.equal('/members/usr_alice');
    expect(element.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('alice@example.com was removed from this knowledge base.');
    expect(emails(element)).to.deep.equal(['owner@example.com', 'reader@example.com']);
  });

  it('the last owner: the server refusal shown in its words, the owner still listed', async () => {
    const api = new ScriptedApi();
    const element = await membersTab(api, true);

    buttonNamed(element, 'Remove owner@example.com')!.click();
    await element.updateComplete;
    buttonNamed(element, 'Confirm remove owner@example.com')!.click();
    await waitUntil(() => element.shadowRoot!.querySelector('[role="alert"]')!.textContent!.includes('not removed'), 'the refusal is shown');

    expect(element.shadowRoot!.querySelector('[role="alert"]')!.textContent).to.contain(`owner@example.com was not removed: ${LAST_OWNER_DETAIL}`);
    expect(emails(element)).to.include('owner@example.com');
    expect(buttonNamed(element, 'Remove owner@example.com')).to.exist;
  });

  it('not an owner: roles as text, no Remove and no Actions column', async () => {
    const element = await membersTab(new ScriptedApi(), false);

    expect(element.shadowRoot!.querySelectorAll('button').length).to.equal(0);
    expect(element.shadowRoot!.querySelector('select')).to.equal(null);
    expect([...element.shadowRoot!.querySelectorAll('th')].map((header) => header.textContent)).to.deep.equal(['Email', 'Role']);
  });

  it('no axe violations: owner view with a removal awaiting confirmation, and the plain view', async () => {
    const owner = await membersTab(new ScriptedApi(), true);
    buttonNamed(owner, 'Remove alice@example.com')!.click();
    await owner.updateComplete;
    await expect(owner).to.be.accessible();

    const plain = await membersTab(new ScriptedApi(), false);
    await expect(plain).to.be.accessible();
  });
});

describe('kb-members-tab invitations', () => {
  /** Fills the invitation form and submits it with its Invite button. */
  async function invite(element: KbMembersTab, email: string, role: string): Promise<void> {
    const root = element.shadowRoot!;
    root.querySelector<HTMLInputElement>('#invite-email')!.value = email;
    root.querySelector<HTMLSelectElement>('#invite-role')!.value = role;
    buttonNamed(element, 'Invite')!.click();
    await waitUntil(() => root.querySelector('.invited, [role="alert"] p') !== null, 'the invitation is answered');
  }

  function text(element: Element | null | undefined): string {
    return (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
  }

  it('a new person: the link with its expiry and a Copy link button writing it to the clipboard; listed as invited, focus on the outcome', async () => {
    const api = new ScriptedApi();
    const element = await membersTab(api, true);
    const root = element.shadowRoot!;
    expect(root.querySelector('label[for="invite-email"]')!.textContent).to.equal('Email');
    expect(root.querySelector<HTMLSelectElement>('#invite-role')!.value).to.equal('reader');
    let copied = '';
    const clipboard = navigator.clipboard;
    const original = clipboard.writeText;
    clipboard.writeText = async (value: string) => {
      copied = value;
    };
    try {
      await invite(element, '  dana@example.com ', 'editor');

      expect(api.requests.find((request) => request.method === 'POST')?.body).to.deep.equal({ email: 'dana@example.com', role: 'editor' });
      const invited = root.querySelector('.invited')!;
      expect(text(invited.querySelector('h3'))).to.equal('dana@example.com was invited as editor');
      expect(text(invited)).to.contain('No mail is sent');
      expect(text(invited)).to.match(/It works once and expires on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 7 days\)\./);
      expect(root.querySelector('label[for="invited-link"]')!.textContent).to.equal('Set-password link for dana@example.com');
      expect(root.querySelector<HTMLInputElement>('#invited-link')!.value).to.equal('https://kb.example.com/console#/set-password/kbp_secret1');
      await waitUntil(() => root.activeElement?.id === 'invited-heading', 'focus moves to the outcome');
      await waitUntil(() => emails(element).some((email) => email.startsWith('dana@example.com')), 'dana is listed');
      expect(text(root.querySelector('tr[data-user-id="usr_dana"] td'))).to.equal('dana@example.com invited, no password yet');

      buttonNamed(element, 'Copy link')!.click();
      await waitUntil(() => text(invited).includes('Copied'), 'the copy is confirmed');
      expect(copied).to.equal('https://kb.example.com/console#/set-password/kbp_secret1');
    } finally {
      clipboard.writeText = original;
    }
  });

  it('a person whose account has a password: added, told no link is needed, no link shown', async () => {
    const element = await membersTab(new ScriptedApi(), true);

    await invite(element, 'carl@example.com', 'reader');

    const invited = element.shadowRoot!.querySelector('.invited')!;
    expect(text(invited.querySelector('h3'))).to.equal('carl@example.com was added as reader');
    expect(text(invited)).to.contain('They already have an account with a password, so no link is needed');
    expect(element.shadowRoot!.querySelector('#invited-link')).to.equal(null);
  });

  it('an existing member: the server refusal in the form, no outcome shown', async () => {
    const element = await membersTab(new ScriptedApi(), true);

    await invite(element, 'alice@example.com', 'reader');

    expect(text(element.shadowRoot!.querySelector('form [role="alert"]'))).to.equal(
      'alice@example.com was not invited: alice@example.com is already a member of "docs" as editor; change their role in the members list instead',
    );
    expect(element.shadowRoot!.querySelector('.invited')).to.equal(null);
  });

  it('a pending member: New link makes a new link, saying the earlier ones no longer work; members with a password have no New link', async () => {
    const api = new ScriptedApi();
    api.members = [...api.members, { user_id: 'usr_erin', email: 'erin@example.com', role: 'reader', pending: true }];
    const element = await membersTab(api, true);
    expect(buttonNamed(element, 'New link for alice@example.com')).to.equal(undefined);

    buttonNamed(element, 'New link for erin@example.com')!.click();
    await waitUntil(() => element.shadowRoot!.querySelector('.invited') !== null, 'the new link is shown');

    const invited = element.shadowRoot!.querySelector('.invited')!;
    expect(api.requests.at(-1)).to.deep.equal({ method: 'POST', path: '/members/usr_erin/password-link', body: {} });
    expect(text(invited.querySelector('h3'))).to.equal('A new set-password link for erin@example.com');
    expect(text(invited)).to.contain('Earlier links for them no longer work.');
    expect(element.shadowRoot!.querySelector<HTMLInputElement>('#invited-link')!.value).to.equal('https://kb.example.com/console#/set-password/kbp_secret1');
  });

  it('not an owner: no invitation form and no New link, pending members still marked', async () => {
    const api = new ScriptedApi();
    api.members = [...api.members, { user_id: 'usr_erin', email: 'erin@example.com', role: 'reader', pending: true }];
    const element = await membersTab(api, false);

    expect(element.shadowRoot!.querySelector('form')).to.equal(null);
    expect(element.shadowRoot!.querySelectorAll('button').length).to.equal(0);
    expect(text(element.shadowRoot!.querySelector('tr[data-user-id="usr_erin"] td'))).to.equal('erin@example.com invited, no password yet');
  });

  it('no axe violations: the form, a link shown, and a pending member', async () => {
    const api = new ScriptedApi();
    const element = await membersTab(api, true);
    await invite(element, 'dana@example.com', 'reader');
    await waitUntil(() => element.shadowRoot!.querySelector('.pending') !== null, 'dana is listed as pending');

    await expect(element).to.be.accessible();
  });
});
