import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import { defineConsoleElements } from './define.ts';
import type { KbSignInPage } from './sign-in-page.ts';

/** The sign-in form in Chromium against a scripted `POST /console/api/session`. */
defineConsoleElements();

function signInApi(status: 204 | 401): { fetch: FetchFunction; bodies: unknown[] } {
  const bodies: unknown[] = [];
  return {
    bodies,
    fetch: async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return status === 204
        ? new Response(null, { status: 204 })
        : Response.json({ status: 401, code: 'unauthenticated', detail: 'Wrong email or password' }, { status: 401 });
    },
  };
}

async function signInPage(fetch: FetchFunction): Promise<KbSignInPage> {
  return fixture<KbSignInPage>(html`<kb-sign-in-page .client=${new ConsoleClient({ fetch })}></kb-sign-in-page>`);
}

function fill(element: KbSignInPage, email: string, password: string): void {
  element.shadowRoot!.querySelector<HTMLInputElement>('#email')!.value = email;
  element.shadowRoot!.querySelector<HTMLInputElement>('#password')!.value = password;
}

function submit(element: KbSignInPage): void {
  [...element.shadowRoot!.querySelectorAll('button')].find((button) => button.textContent?.trim() === 'Sign in')!.click();
}

describe('kb-sign-in-page', () => {
  it('labels Email and Password and a Sign in button', async () => {
    const element = await signInPage(signInApi(204).fetch);

    const root = element.shadowRoot!;
    expect(root.querySelector('label[for="email"]')!.textContent).to.equal('Email');
    expect(root.querySelector('label[for="password"]')!.textContent).to.equal('Password');
    expect(root.querySelector('#password')!.getAttribute('type')).to.equal('password');
  });

  it('wrong password (401): the server sentence in the alert region, no event', async () => {
    const element = await signInPage(signInApi(401).fetch);
    let signedIn = false;
    element.addEventListener('kb-console-signed-in', () => (signedIn = true));

    fill(element, 'owner@example.com', 'wrong');
    submit(element);
    await waitUntil(() => element.shadowRoot!.querySelector('[role="alert"]')!.textContent!.includes('Wrong'), 'the refusal is shown');

    expect(element.shadowRoot!.querySelector('[role="alert"]')!.textContent).to.contain('Sign-in failed: Wrong email or password');
    expect(signedIn).to.equal(false);
  });

  it('right password: sends email and password and fires kb-console-signed-in', async () => {
    const api = signInApi(204);
    const element = await signInPage(api.fetch);

    fill(element, 'owner@example.com', 'secret');
    const signedIn = oneEvent(element, 'kb-console-signed-in');
    submit(element);
    await signedIn;

    expect(api.bodies).to.deep.equal([{ email: 'owner@example.com', password: 'secret' }]);
  });

  it('no axe violations, before and after a refusal', async () => {
    const element = await signInPage(signInApi(401).fetch);
    await expect(element).to.be.accessible();

    fill(element, 'owner@example.com', 'wrong');
    submit(element);
    await waitUntil(() => element.shadowRoot!.querySelector('[role="alert"] p') !== null, 'the refusal is shown');
    await expect(element).to.be.accessible();
  });
});
