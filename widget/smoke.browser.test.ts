import { expect, fixture, html } from '@open-wc/testing';

describe('smoke', () => {
  it('renders a button in Chromium', async () => {
    const element = await fixture(html`<button>Ask</button>`);
    expect(element.textContent).to.equal('Ask');
    await expect(element).to.be.accessible();
  });
});
