import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { ConsoleMember } from '../protocol/console-protocol.ts';
import { defineConsoleElements } from './define.ts';
import type { KbMembersTab } from './members-tab.ts';

/**
 * The Members tab in Chromium against a scripted console API: owners get a
 * two-step "Remove" per member ("Confirm remove" / "Cancel"), the server's
 * refusal to remove the last owner is shown in its words, and others see no
 * controls; axe finds no violation.
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
  requests: { method: string; path: string }[] = [];

  readonly fetch: FetchFunction = async (url, init) => {
    const method = init?.method ?? 'GET';
    const path = url.replace('/console/api/knowledge-bases/docs', '');
    this.requests.push({ method, path });
    if (method === 'GET' && path === '/members') return Response.json({ members: this.members });
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
    buttonNamed(element, 'Cancel')!.click();
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
