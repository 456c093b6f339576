import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { ConsoleClient } from './console-client.ts';
import { defineConsoleElements } from './define.ts';
import { loadWidgetScript, type KbWidgetPreview } from './widget-preview.ts';

/**
 * The preview's script loading in Chromium, on a page where `<kb-widget>` is
 * not defined (the Developers tab's own test defines it): a script that
 * cannot be loaded, or that defines no `<kb-widget>`, gives a sentence
 * instead of a widget, and a later attempt tries again.
 */
defineConsoleElements();

function alertText(element: KbWidgetPreview): string {
  return element.shadowRoot!.querySelector('[role="alert"]')?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
}

describe('kb-widget-preview script loading', () => {
  it('widget script missing (404): a sentence naming the script and the build, no widget', async () => {
    const element = await fixture<KbWidgetPreview>(
      html`<kb-widget-preview .client=${new ConsoleClient()} kb-id="docs" widget-script-url="/no-such-widget.js"></kb-widget-preview>`,
    );

    await waitUntil(() => alertText(element) !== '', 'the failure is shown');

    expect(alertText(element)).to.contain('The preview could not start: /no-such-widget.js could not be loaded');
    expect(alertText(element)).to.contain('npm run build');
    expect(element.shadowRoot!.querySelector('kb-widget')).to.equal(null);
  });

  it('a script that defines no <kb-widget>: rejected with a sentence; the script element removed so a later call tries again', async () => {
    const url = `data:text/javascript,window.__attempt=${Date.now()}`;

    const failure = await loadWidgetScript(url).catch((error: unknown) => error as Error);

    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.equal(`${url} loaded but did not define <kb-widget>`);
    expect(document.head.querySelector(`script[src="${url}"]`)).to.equal(null);
  });
});
