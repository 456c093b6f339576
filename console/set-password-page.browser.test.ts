import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import { defineConsoleElements } from './define.ts';
import type { KbSetPasswordPage } from './set-password-page.ts';

/**
 * The set-password page in Chromium against a scripted console API: the link
 * is checked first and names the account, or the page says why it cannot be
 * used; the password is asked twice and checked before it is sent; success
 * fires `kb-console-signed-in`; axe finds no violation.
 */
defineConsoleElements();

const USED = 'This set-password link has already been used; sign in with the password chosen then';

/** A console API with one usable link, `kbp_good`, which works once. */
class ScriptedApi {
  requests: { path: string; body: unknown }[] = [];
  used = false;

  readonly fetch: FetchFunction = async (url, init) => {
    const path = url.replace('/console/api', '');
    const body = JSON.parse(String(init?.body)) as { token: string; password?: string };
    this.requests.push({ path, body });
    if (body.token !== 'kbp_good') return this.#refusal(404, 'This set-password link is not valid; check that it was copied whole, or ask the owner who invited you for a new link');
    if (this.used) return this.#refusal(410, USED);
    if (path === '/set-password/check') return Response.json({ email: 'dana@example.com', expires_at: '2026-11-30T10:15:00.000Z' });
    this.used = true;
    return new Response(null, { status: 204 });
  };

  #refusal(status: number, detail: string): Response {
    return Response.json({ type: 'urn:kb-widget:problem:invalid_link', title: 'Link not valid', status, code: 'invalid_link', detail }, { status });
  }
}

async function setPasswordPage(api: ScriptedApi, token: string): Promise<KbSetPasswordPage> {
  const element = await fixture<KbSetPasswordPage>(
    html`<kb-set-password-page .client=${new ConsoleClient({ fetch: api.fetch })} token=${token}></kb-set-password-page>`,
  );
  await waitUntil(() => element.shadowRoot!.querySelector('h1') !== null, 'the link is checked');
  return element;
}

function fill(element: KbSetPasswordPage, password: string, repeated: string): void {
  element.shadowRoot!.querySelector<HTMLInputElement>('#password')!.value = password;
  element.shadowRoot!.querySelector<HTMLInputElement>('#repeated')!.value = repeated;
}

function submit(element: KbSetPasswordPage): void {
  [...element.shadowRoot!.querySelectorAll('button')].find((button) => button.textContent?.trim() === 'Set password and sign in')!.click();
}

function text(element: Element | null | undefined): string {
  return (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

describe('kb-set-password-page', () => {
  it('a usable link: names the account and the expiry; labelled New password and Repeat the password', async () => {
    const element = await setPasswordPage(new ScriptedApi(), 'kbp_good');
    const root = element.shadowRoot!;

    expect(text(root.querySelector('h1'))).to.equal('Choose your password');
    expect(text(root.querySelector('main > p'))).to.contain('For dana@example.com. This link works once, until 2026-11-30 10:15 UTC');
    expect(root.querySelector<HTMLInputElement>('#email')!.value).to.equal('dana@example.com');
    expect(root.querySelector('label[for="password"]')!.textContent).to.equal('New password');
    expect(root.querySelector('label[for="repeated"]')!.textContent).to.equal('Repeat the password');
    expect(root.querySelector('#password')!.getAttribute('autocomplete')).to.equal('new-password');
  });

  it('two different passwords, or one too short: said in the alert region, nothing sent', async () => {
    const api = new ScriptedApi();
    const element = await setPasswordPage(api, 'kbp_good');

    fill(element, 'a long password one', 'a long password two');
    submit(element);
    await element.updateComplete;
    const mismatch = text(element.shadowRoot!.querySelector('[role="alert"]'));
    fill(element, 'too short', 'too short');
    submit(element);
    await element.updateComplete;

    expect(mismatch).to.equal('The two passwords differ: type the same password in both fields.');
    expect(text(element.shadowRoot!.querySelector('[role="alert"]'))).to.equal('Choose a password of at least 12 characters; this one has 9.');
    expect(api.requests.map((request) => request.path)).to.deep.equal(['/set-password/check']);
  });

  it('the same password twice: sends the link and the password, fires kb-console-signed-in', async () => {
    const api = new ScriptedApi();
    const element = await setPasswordPage(api, 'kbp_good');

    fill(element, 'a long password, mine', 'a long password, mine');
    const signedIn = oneEvent(element, 'kb-console-signed-in');
    submit(element);
    await signedIn;

    expect(api.requests.at(-1)).to.deep.equal({ path: '/set-password', body: { token: 'kbp_good', password: 'a long password, mine' } });
  });

  it('a used link: the server sentence and a way to sign in, no form', async () => {
    const api = new ScriptedApi();
    api.used = true;

    const element = await setPasswordPage(api, 'kbp_good');

    expect(text(element.shadowRoot!.querySelector('h1'))).to.equal('This link cannot be used');
    expect(text(element.shadowRoot!.querySelector('[role="alert"]'))).to.equal(USED);
    expect(element.shadowRoot!.querySelector('a[href="#/"]')!.textContent).to.equal('Go to sign-in');
    expect(element.shadowRoot!.querySelector('form')).to.equal(null);
  });

  it('a link used up in another tab while the form was open: the refusal replaces the form', async () => {
    const api = new ScriptedApi();
    const element = await setPasswordPage(api, 'kbp_good');
    api.used = true;

    fill(element, 'a long password, mine', 'a long password, mine');
    submit(element);
    await waitUntil(() => element.shadowRoot!.querySelector('form') === null, 'the form is replaced');

    expect(text(element.shadowRoot!.querySelector('[role="alert"]'))).to.equal(USED);
  });

  it('no axe violations: the form after a refusal', async () => {
    const form = await setPasswordPage(new ScriptedApi(), 'kbp_good');
    fill(form, 'short', 'short');
    submit(form);
    await form.updateComplete;

    await expect(form).to.be.accessible();
  });

  it('no axe violations: an unknown link', async () => {
    const unknown = await setPasswordPage(new ScriptedApi(), 'kbp_unknown');


    expect(text(unknown.shadowRoot!.querySelector('[role="alert"]'))).to.match(/^This set-password link is not valid/);
    await expect(unknown).to.be.accessible();
  });
});
