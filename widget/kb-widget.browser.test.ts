import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { emulateMedia, sendKeys, setViewport } from '@web/test-runner-commands';
import './index.ts';
import { defineKbWidget } from './define.ts';
import type { KbWidget } from './kb-widget.ts';
import type { KbWidgetAnswerEvent, KbWidgetErrorEvent, KbWidgetQuestionEvent } from './kb-widget-events.ts';
import { DEFAULT_STRINGS } from './widget-strings.ts';

/**
 * `<kb-widget>` in Chromium against the scripted API of
 * widget/testing/scripted-answers.mjs (served by the test runner on the page's
 * own origin, so `base-url` is empty): the answer is chosen by the question,
 * the refusal by the token.
 */

async function widget(attributes: { token?: string; mode?: string; baseUrl?: string } = {}): Promise<KbWidget> {
  return fixture<KbWidget>(html`<kb-widget
    base-url=${attributes.baseUrl ?? ''}
    kb-id="docs"
    token=${attributes.token ?? 'good'}
    mode=${attributes.mode ?? 'inline'}
    starter-questions='["answer","reset"]'
  ></kb-widget>`);
}

function shadow(element: KbWidget): ShadowRoot {
  return element.shadowRoot!;
}

function lastAnswerText(element: KbWidget): string {
  const answers = shadow(element).querySelectorAll('.answer');
  return answers[answers.length - 1]?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
}

async function askAndSettle(element: KbWidget, question: string): Promise<void> {
  await element.ask(question);
  await element.updateComplete;
}

function notice(element: KbWidget): string {
  return shadow(element).querySelector('.notice')?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
}

beforeEach(async () => {
  await fetch('/scripted/reset');
});

describe('kb-widget frames', () => {
  it('tokens then citations then suggestions: markdown rendered, marker linked to its source, suggestions offered', async () => {
    const element = await widget();
    const answered = oneEvent(element, 'kb-widget-answer') as Promise<KbWidgetAnswerEvent>;

    await askAndSettle(element, 'answer');

    const event = await answered;
    expect(event.abstained).to.equal(false);
    expect(lastAnswerText(element)).to.contain('Use mkdir with the recursive option');
    expect(shadow(element).querySelector('.answer code')?.textContent).to.equal('mkdir');
    expect(shadow(element).querySelector('.answer strong')?.textContent).to.equal('recursive');
    const marker = shadow(element).querySelector<HTMLAnchorElement>('.answer a.citation')!;
    const source = shadow(element).querySelector(`[id="${marker.getAttribute('href')!.slice(1)}"]`)!;
    expect(source.querySelector('summary')?.textContent).to.equal('fs.md');
    expect(source.querySelector('blockquote')?.textContent?.trim()).to.equal('Use mkdir with recursive: true.');
    const suggestions = [...shadow(element).querySelectorAll('.chip')].map((button) => button.textContent?.trim());
    expect(suggestions).to.deep.equal(['How do I remove a directory?', 'How do I read a file?']);
  });

  it('citation marker clicked: focus moves to its source, the page URL is unchanged', async () => {
    const element = await widget();
    await askAndSettle(element, 'answer');
    const before = location.href;

    shadow(element).querySelector<HTMLAnchorElement>('a.citation')!.click();

    expect(location.href).to.equal(before);
    expect(shadow(element).activeElement?.getAttribute('part')).to.equal('citation');
    expect(shadow(element).activeElement?.querySelector('details')?.open).to.equal(true);
  });

  it('suggestion clicked: asks that question', async () => {
    const element = await widget();
    await askAndSettle(element, 'answer');
    const asked = oneEvent(element, 'kb-widget-question') as Promise<KbWidgetQuestionEvent>;

    shadow(element).querySelector<HTMLButtonElement>('.chip')!.click();

    expect((await asked).question).to.equal('How do I remove a directory?');
  });

  it('reset mid-answer: only the corrected answer remains', async () => {
    const element = await widget();

    await askAndSettle(element, 'reset');

    expect(lastAnswerText(element)).to.equal('The corrected answer.');
  });

  it('abstain after tokens: the partial answer is replaced by the refusal', async () => {
    const element = await widget();
    const answered = oneEvent(element, 'kb-widget-answer') as Promise<KbWidgetAnswerEvent>;

    await askAndSettle(element, 'abstain after tokens');

    expect(lastAnswerText(element)).to.equal('I could not find that in the docs.');
    expect((await answered).abstained).to.equal(true);
  });

  it('error mid-answer: what arrived stays, a notice with a retry button follows', async () => {
    const element = await widget();
    const failed = oneEvent(element, 'kb-widget-error') as Promise<KbWidgetErrorEvent>;

    await askAndSettle(element, 'error mid-answer');

    expect(lastAnswerText(element)).to.equal('Half an answer');
    expect(notice(element)).to.contain(DEFAULT_STRINGS.generationFailed);
    expect(shadow(element).querySelector('.retry')).to.exist;
    expect((await failed).code).to.equal('generation_failed');
  });

  it('stream ending without done or error: shown as interrupted', async () => {
    const element = await widget();

    await askAndSettle(element, 'truncated');

    expect(lastAnswerText(element)).to.equal('Cut off before the');
    expect(notice(element)).to.contain(DEFAULT_STRINGS.interrupted);
  });

  it('unknown frame and comment: ignored', async () => {
    const element = await widget();

    await askAndSettle(element, 'unknown frame');

    expect(lastAnswerText(element)).to.equal('Still fine.');
    expect(shadow(element).textContent).not.to.contain('ignore me');
  });
});

describe('kb-widget refusals', () => {
  const cases: [string, string, boolean][] = [
    ['expired', DEFAULT_STRINGS.expired, false],
    ['revoked', DEFAULT_STRINGS.revoked, false],
    ['not-allowed', DEFAULT_STRINGS.notAllowed, false],
    ['busy', 'Try again in 7 seconds.', true],
    ['down', DEFAULT_STRINGS.unavailable, true],
    ['bogus', DEFAULT_STRINGS.misconfigured, false],
    ['other-kb', DEFAULT_STRINGS.misconfigured, false],
    ['huge', DEFAULT_STRINGS.rejected, false],
  ];
  for (const [token, words, retry] of cases) {
    it(`token "${token}": the visitor reads "${words}"${retry ? ' with a retry button' : ''}`, async () => {
      const element = await widget({ token });

      await askAndSettle(element, 'answer');

      expect(notice(element)).to.contain(words);
      expect(Boolean(shadow(element).querySelector('.retry'))).to.equal(retry);
      expect(lastAnswerText(element)).to.equal('');
    });
  }

  it('API unreachable: the offline message with a retry button', async () => {
    const element = await widget({ baseUrl: 'http://127.0.0.1:9' });

    await askAndSettle(element, 'answer');

    expect(notice(element)).to.contain(DEFAULT_STRINGS.offline);
    expect(shadow(element).querySelector('.retry')).to.exist;
  });
});

describe('kb-widget tokens', () => {
  it('expired token and a token provider: one fresh token, then the answer', async () => {
    const element = await widget({ token: 'stale' });
    let calls = 0;
    element.tokenProvider = async () => {
      calls += 1;
      return 'fresh';
    };

    await askAndSettle(element, 'answer');

    expect(calls).to.equal(1);
    expect(lastAnswerText(element)).to.contain('Use mkdir');
    const requests = (await (await fetch('/scripted/requests')).json()) as { token: string }[];
    expect(requests.map((request) => request.token)).to.deep.equal(['stale', 'fresh']);
  });

  it('provider that keeps returning an expired token: asked once, then the expired message', async () => {
    const element = await widget({ token: 'stale' });
    let calls = 0;
    element.tokenProvider = async () => {
      calls += 1;
      return 'expired';
    };

    await askAndSettle(element, 'answer');

    expect(calls).to.equal(1);
    expect(notice(element)).to.contain(DEFAULT_STRINGS.expired);
  });

  it('no token attribute: the provider supplies one before the first question', async () => {
    const element = await fixture<KbWidget>(html`<kb-widget kb-id="docs" mode="inline"></kb-widget>`);
    element.tokenProvider = async () => 'fresh';

    await askAndSettle(element, 'answer');

    expect(lastAnswerText(element)).to.contain('Use mkdir');
  });
});

describe('kb-widget stop and new questions', () => {
  it('Stop during a long answer: what arrived stays, nothing more is added', async () => {
    const element = await widget();
    const done = element.ask('slow');
    await waitUntil(() => lastAnswerText(element).includes('word2'), 'tokens did not arrive', { timeout: 5000 });

    shadow(element).querySelector<HTMLButtonElement>('.submit')!.click();
    await done;
    const shown = lastAnswerText(element);
    await new Promise((resolve) => setTimeout(resolve, 400));

    expect(lastAnswerText(element)).to.equal(shown);
    expect(shadow(element).textContent).to.contain(DEFAULT_STRINGS.stopped);
  });

  it('new question while one streams: the first is stopped, the second answered', async () => {
    const element = await widget();
    const first = element.ask('slow');
    await waitUntil(() => lastAnswerText(element).includes('word1'), 'tokens did not arrive', { timeout: 5000 });

    await Promise.all([first, element.ask('answer')]);
    await element.updateComplete;

    expect(lastAnswerText(element)).to.contain('Use mkdir');
    expect(shadow(element).textContent).to.contain(DEFAULT_STRINGS.stopped);
  });

  it('element removed while streaming: the request is aborted', async () => {
    const element = await widget();
    void element.ask('slow');
    await waitUntil(() => lastAnswerText(element).includes('word1'), 'tokens did not arrive', { timeout: 5000 });

    element.remove();

    expect(element.busy).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lastAnswerText(element)).not.to.contain('word5');
  });
});

describe('kb-widget accessibility', () => {
  it('launcher: reports its expanded state, moves focus into the panel and back, Escape closes', async () => {
    const element = await widget({ mode: 'launcher' });
    const launcher = shadow(element).querySelector<HTMLButtonElement>('.launcher')!;
    expect(launcher.getAttribute('aria-expanded')).to.equal('false');

    launcher.click();
    await waitUntil(() => shadow(element).activeElement?.tagName === 'INPUT', 'focus did not enter the panel');
    expect(launcher.getAttribute('aria-expanded')).to.equal('true');

    await sendKeys({ press: 'Escape' });
    await element.updateComplete;
    await waitUntil(() => shadow(element).activeElement === launcher, 'focus did not return to the launcher');
    expect(launcher.getAttribute('aria-expanded')).to.equal('false');
    expect(shadow(element).querySelector('.panel')!.hasAttribute('hidden')).to.equal(true);
  });

  it('keyboard only: type a question, press Enter, the answer arrives', async () => {
    const element = await widget({ mode: 'launcher' });
    shadow(element).querySelector<HTMLButtonElement>('.launcher')!.focus();
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => shadow(element).activeElement?.tagName === 'INPUT', 'focus did not enter the panel');
    const answered = oneEvent(element, 'kb-widget-answer');

    await sendKeys({ type: 'answer' });
    await sendKeys({ press: 'Enter' });

    await answered;
    await element.updateComplete;
    expect(lastAnswerText(element)).to.contain('Use mkdir');
  });

  it('transcript: a log region; a streaming answer is hidden from assistive technology until it finishes', async () => {
    const element = await widget();
    const streaming = element.ask('slow');
    await waitUntil(() => lastAnswerText(element).includes('word1'), 'tokens did not arrive', { timeout: 5000 });

    expect(shadow(element).querySelector('.transcript')!.getAttribute('role')).to.equal('log');
    expect(shadow(element).querySelector('.answer')!.getAttribute('aria-hidden')).to.equal('true');

    element.stop();
    await streaming;
    await element.updateComplete;
    expect(shadow(element).querySelector('article.answer')!.hasAttribute('aria-hidden')).to.equal(false);
  });

  it('no axe violations: inline with an answer, and launcher opened', async () => {
    const inline = await widget();
    await askAndSettle(inline, 'answer');
    await expect(inline).to.be.accessible();

    const launcher = await widget({ mode: 'launcher' });
    await launcher.show();
    await Promise.all(shadow(launcher).getAnimations().map((animation) => animation.finished));
    await expect(launcher).to.be.accessible();
  });
});

describe('kb-widget hostile answers', () => {
  for (let index = 0; index < 8; index += 1) {
    it(`hostile answer ${index}: rendered inert, nothing loaded`, async () => {
      const element = await widget();
      (window as { __kbPwned?: number }).__kbPwned = undefined;

      await askAndSettle(element, `hostile ${index}`);
      await new Promise((resolve) => setTimeout(resolve, 100));

      const root = shadow(element);
      expect(root.querySelectorAll('.answer script, .answer img, .answer iframe, .answer style, .answer object')).to.have.length(0);
      for (const node of root.querySelectorAll('.answer *')) {
        for (const attribute of node.getAttributeNames()) expect(attribute.startsWith('on')).to.equal(false);
      }
      for (const link of root.querySelectorAll<HTMLAnchorElement>('.answer a[href]')) {
        expect(/^(https:|#)/.test(link.getAttribute('href')!)).to.equal(true);
      }
      expect((window as { __kbPwned?: number }).__kbPwned).to.equal(undefined);
      const loaded = performance.getEntriesByType('resource').map((entry) => entry.name);
      expect(loaded.filter((name) => name.includes('evil.test'))).to.deep.equal([]);
      expect(lastAnswerText(element).length).to.be.greaterThan(0);
    });
  }
});

describe('kb-widget packaging and customisation', () => {
  it('registered twice: no exception, the first definition stays', () => {
    const first = customElements.get('kb-widget');

    defineKbWidget();

    expect(customElements.get('kb-widget')).to.equal(first);
  });

  it('strings property: replaces the texts it names and keeps the rest', async () => {
    const element = await widget();
    element.strings = { ask: 'Fragen' };
    await element.updateComplete;

    expect(shadow(element).querySelector('.submit')!.textContent?.trim()).to.equal('Fragen');
    expect(shadow(element).querySelector('input')!.getAttribute('aria-label')).to.equal(DEFAULT_STRINGS.questionLabel);
  });

  it('starter questions: offered before the first question, ask when clicked', async () => {
    const element = await widget();

    const starters = [...shadow(element).querySelectorAll('.chip')].map((button) => button.textContent?.trim());

    expect(starters).to.deep.equal(['answer', 'reset']);
  });

  it('host page CSS: does not reach inside the widget', async () => {
    const style = document.createElement('style');
    style.textContent = 'button { color: rgb(255, 0, 0) !important; } p { display: none !important; }';
    document.head.append(style);
    try {
      const element = await widget();
      await askAndSettle(element, 'answer');

      expect(getComputedStyle(shadow(element).querySelector('.submit')!).color).not.to.equal('rgb(255, 0, 0)');
      expect(getComputedStyle(shadow(element).querySelector('.question')!).display).not.to.equal('none');
    } finally {
      style.remove();
    }
  });

  it('360 px wide phone screen: the launcher panel fits the viewport', async () => {
    await setViewport({ width: 360, height: 640 });
    try {
      const element = await widget({ mode: 'launcher' });
      await element.show();

      const box = shadow(element).querySelector('.panel')!.getBoundingClientRect();
      expect(box.left).to.be.at.least(0);
      expect(box.right).to.be.at.most(360);
    } finally {
      await setViewport({ width: 1024, height: 768 });
    }
  });

  it('theme="auto" under a dark colour scheme: the dark panel; under a light one: the light panel', async () => {
    const element = await widget();
    element.theme = 'auto';
    await element.updateComplete;
    const panel = shadow(element).querySelector('.panel')!;
    try {
      await emulateMedia({ colorScheme: 'dark' });
      expect(getComputedStyle(panel).backgroundColor).to.equal('rgb(31, 34, 39)');

      await emulateMedia({ colorScheme: 'light' });
      expect(getComputedStyle(panel).backgroundColor).to.equal('rgb(255, 255, 255)');
    } finally {
      await emulateMedia({ colorScheme: 'light' });
    }
  });

  it("widget CSS: does not reach the host page's own buttons and paragraphs", async () => {
    const element = await widget();
    const pageButton = document.createElement('button');
    pageButton.textContent = 'Page button';
    document.body.append(pageButton);
    try {
      await askAndSettle(element, 'answer');

      expect(getComputedStyle(pageButton).cursor).not.to.equal('pointer');
      expect(getComputedStyle(pageButton).backgroundColor).not.to.equal(
        getComputedStyle(shadow(element).querySelector('.submit')!).backgroundColor,
      );
    } finally {
      pageButton.remove();
    }
  });

  it('theme="dark": a dark panel background', async () => {
    const element = await widget();
    element.theme = 'dark';
    await element.updateComplete;

    expect(getComputedStyle(shadow(element).querySelector('.panel')!).backgroundColor).to.equal('rgb(31, 34, 39)');
  });
});
