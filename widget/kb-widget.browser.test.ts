import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { a11ySnapshot, emulateMedia, sendKeys, setViewport } from '@web/test-runner-commands';
import './index.ts';
import { defineKbWidget } from './define.ts';
import type { KbWidget } from './kb-widget.ts';
import type { KbWidgetAnswerEvent, KbWidgetErrorEvent, KbWidgetQuestionEvent } from './kb-widget-events.ts';
import { DEFAULT_STRINGS } from './widget-strings.ts';
import { expectNoAxeViolations } from './testing/axe-in-browser.ts';

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
  sessionStorage.clear();
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
    expect(source.querySelector('summary')?.textContent).to.equal('Quote [1]');
    expect(source.closest('[part="citation"]')!.querySelector('.title')?.textContent).to.equal('Fs');
    expect(source.querySelector('blockquote')?.textContent?.trim()).to.equal('Use mkdir with recursive: true.');
    const suggestions = [...shadow(element).querySelectorAll('.chip')].map((button) => button.textContent?.trim());
    expect(suggestions).to.deep.equal(['How do I remove a directory?', 'How do I read a file?']);
  });

  it('citation marker clicked: focus moves to its quote, which opens; the page URL is unchanged', async () => {
    const element = await widget();
    await askAndSettle(element, 'answer');
    const before = location.href;
    const marker = shadow(element).querySelector<HTMLAnchorElement>('a.citation')!;

    marker.click();

    expect(location.href).to.equal(before);
    const focused = shadow(element).activeElement!;
    expect(focused.tagName).to.equal('SUMMARY');
    expect((focused.parentElement as HTMLDetailsElement).open).to.equal(true);
    expect(focused.parentElement!.id).to.equal(marker.getAttribute('href')!.slice(1));
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
    ['busy', DEFAULT_STRINGS.rateLimited, true],
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

describe('kb-widget stalled server', () => {
  /** An inline widget that gives up after `stall-timeout` ms without a sign of life. */
  async function impatientWidget(): Promise<KbWidget> {
    return fixture<KbWidget>(html`<kb-widget kb-id="docs" token="good" mode="inline" stall-timeout="300"></kb-widget>`);
  }

  it('server accepts the question and then sends nothing: "isn\'t answering" with Try again, an error event, the request closed', async () => {
    const element = await impatientWidget();
    const failed = oneEvent(element, 'kb-widget-error') as Promise<KbWidgetErrorEvent>;

    await askAndSettle(element, 'frozen');

    expect(notice(element)).to.contain(DEFAULT_STRINGS.stalled);
    expect(shadow(element).querySelector('.status')).to.equal(null);
    expect(shadow(element).querySelector('.retry')).to.exist;
    expect((await failed).reason).to.equal('stalled');
  });

  it('server freezes mid-answer: the words that arrived stay, "isn\'t answering" follows', async () => {
    const element = await impatientWidget();

    await askAndSettle(element, 'frozen mid-answer');

    expect(lastAnswerText(element)).to.equal('Half an answer');
    expect(notice(element)).to.contain(DEFAULT_STRINGS.stalled);
  });

  it('server sends only heartbeats for twice the stall timeout, then answers: the answer, no notice', async () => {
    const element = await impatientWidget();

    await askAndSettle(element, 'heartbeats');

    expect(lastAnswerText(element)).to.equal('Answered after the heartbeats.');
    expect(notice(element)).to.equal('');
  });

  it('two failed questions: each keeps its own Try again, and the first one\'s asks its question again', async () => {
    const element = await impatientWidget();
    await askAndSettle(element, 'truncated');
    await askAndSettle(element, 'frozen');

    const retries = shadow(element).querySelectorAll<HTMLButtonElement>('.retry');
    expect(retries).to.have.length(2);
    const settled = oneEvent(element, 'kb-widget-error');
    retries[0]!.click();
    await settled;
    await element.updateComplete;

    const requests = (await (await fetch('/scripted/requests')).json()) as { question: string }[];
    expect(requests.map((request) => request.question)).to.deep.equal(['truncated', 'frozen', 'truncated']);
    expect([...shadow(element).querySelectorAll('.question')].map((question) => question.textContent)).to.deep.equal(['frozen', 'truncated']);
    expect(shadow(element).querySelectorAll('.retry')).to.have.length(2);
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
    await expectNoAxeViolations(inline);

    const launcher = await widget({ mode: 'launcher' });
    await launcher.show();
    await Promise.all(shadow(launcher).getAnimations().map((animation) => animation.finished));
    await expectNoAxeViolations(launcher);
  });
});

/** A node of Chromium's accessibility tree, as a11ySnapshot returns it. */
type AccessibilityNode = { role: string; name: string; children?: AccessibilityNode[] };

/** The accessible names of the buttons on the page, in tree order. */
async function buttonNames(): Promise<string[]> {
  const tree = (await a11ySnapshot({})) as unknown as AccessibilityNode;
  const names: string[] = [];
  const visit = (node: AccessibilityNode) => {
    if (node.role === 'button') names.push(node.name);
    node.children?.forEach(visit);
  };
  visit(tree);
  return names;
}

/** Emoji and symbol characters (pictographs, arrows, crosses), which a page's fonts may draw differently or not at all. */
const SYMBOL_CHARACTERS = /[\p{Extended_Pictographic}\p{So}\p{Sm}]/gu;

describe('kb-widget icons', () => {
  it('close, jump to latest, helpful and not helpful: SVG icons, no emoji or symbol in any control, each button keeps its name', async () => {
    const element = await fixture<KbWidget>(html`<kb-widget kb-id="docs" token="good" style="--kb-widget-height: 400px"></kb-widget>`);
    await element.show();
    for (let count = 0; count < 3; count += 1) await askAndSettle(element, 'answer');
    const streaming = element.ask('slow');
    await waitUntil(() => lastAnswerText(element).includes('word1'), 'tokens did not arrive', { timeout: 5000 });
    transcript(element).scrollTop = 0;
    await waitUntil(() => shadow(element).querySelector('.jump'), '"Jump to latest" did not appear');
    element.stop();
    await streaming;

    const controls = [...shadow(element).querySelectorAll('button, a, summary, label')];
    expect(controls.flatMap((control) => control.textContent?.match(SYMBOL_CHARACTERS) ?? [])).to.deep.equal([]);
    const iconButtons = ['.close', '.jump', '.rate'].flatMap((selector) => [...shadow(element).querySelectorAll(selector)]);
    expect(iconButtons.map((button) => button.querySelectorAll('svg[aria-hidden="true"]').length)).to.deep.equal([1, 1, 1, 1, 1, 1, 1, 1]);
    const names = await buttonNames();
    expect(names).to.include.members([DEFAULT_STRINGS.close, DEFAULT_STRINGS.jumpToLatest, DEFAULT_STRINGS.helpful, DEFAULT_STRINGS.notHelpful]);
    expect(names.filter((name) => name.trim() === '')).to.deep.equal([]);
  });
});

/** Focuses `control` and presses `key` on it, as a keyboard user does; resolves once the question it asks is answered or failed. */
async function pressOn(element: KbWidget, control: HTMLElement, key: 'Enter' | ' '): Promise<void> {
  const settled = Promise.race([oneEvent(element, 'kb-widget-answer'), oneEvent(element, 'kb-widget-error')]);
  control.focus();
  await sendKeys({ press: key === ' ' ? 'Space' : key });
  await settled;
  await element.updateComplete;
}

/** Whether keyboard focus is on the widget's question field. */
function focusOnQuestionField(element: KbWidget): boolean {
  return document.activeElement === element && shadow(element).activeElement === shadow(element).querySelector('[part="input"]');
}

describe('kb-widget focus after an action', () => {
  it('starter question chosen with Enter: asked, and focus moves to the question field, not the page', async () => {
    const element = await widget();

    await pressOn(element, shadow(element).querySelector<HTMLButtonElement>('.chip')!, 'Enter');

    expect(lastAnswerText(element)).to.contain('Use mkdir');
    expect(focusOnQuestionField(element)).to.equal(true);
  });

  it('suggestion chosen with Space: asked, and focus moves to the question field, not the page', async () => {
    const element = await widget();
    await askAndSettle(element, 'answer');
    const asked = oneEvent(element, 'kb-widget-question') as Promise<KbWidgetQuestionEvent>;

    await pressOn(element, shadow(element).querySelector<HTMLButtonElement>('.chip')!, ' ');

    expect((await asked).question).to.equal('How do I remove a directory?');
    expect(focusOnQuestionField(element)).to.equal(true);
  });

  it('Retry chosen with Enter: asked again, and focus moves to the question field, not the page', async () => {
    const element = await widget();
    await askAndSettle(element, 'error mid-answer');

    await pressOn(element, shadow(element).querySelector<HTMLButtonElement>('.retry')!, 'Enter');

    expect(shadow(element).querySelectorAll('.question')).to.have.length(1);
    expect(focusOnQuestionField(element)).to.equal(true);
  });

  it('New conversation chosen with Enter: focus moves to the question field', async () => {
    const element = await widget();
    await askAndSettle(element, 'answer');

    shadow(element).querySelector<HTMLButtonElement>('.new')!.focus();
    await sendKeys({ press: 'Enter' });
    await element.updateComplete;

    expect(shadow(element).querySelectorAll('.question')).to.have.length(0);
    expect(focusOnQuestionField(element)).to.equal(true);
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

  it('360 px wide phone screen: the open panel fills the screen, the launcher hides, every control is at least 44 × 44 px', async () => {
    await setViewport({ width: 360, height: 640 });
    try {
      const element = await widget({ mode: 'launcher' });
      await element.show();
      await askAndSettle(element, 'titled');
      await element.updateComplete;
      await Promise.all(shadow(element).getAnimations().map((animation) => animation.finished));

      const box = shadow(element).querySelector('.panel')!.getBoundingClientRect();
      expect([box.left, box.top, box.right, box.bottom]).to.deep.equal([0, 0, 360, 640]);
      expect(getComputedStyle(shadow(element).querySelector('.launcher')!).display).to.equal('none');
      const controls = [...shadow(element).querySelectorAll<HTMLElement>('button, input, summary, .sources a')].filter((control) => control.offsetParent);
      expect(controls.length).to.be.greaterThan(5);
      for (const control of controls) {
        const { width, height } = control.getBoundingClientRect();
        expect([control.className || control.tagName, width >= 44 && height >= 44]).to.deep.equal([control.className || control.tagName, true]);
      }
      await expectNoAxeViolations(element);

      await element.hide();
      expect(getComputedStyle(shadow(element).querySelector('.launcher')!).display).not.to.equal('none');
      expect(shadow(element).activeElement?.className).to.equal('launcher');
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

  it('theme="dark": a dark panel background; an answer with its sources, a quote opened, passes axe', async () => {
    const element = await widget();
    element.theme = 'dark';
    await askAndSettle(element, 'titled');
    shadow(element).querySelector('details')!.open = true;

    expect(getComputedStyle(shadow(element).querySelector('.panel')!).backgroundColor).to.equal('rgb(31, 34, 39)');
    await expectNoAxeViolations(element);
  });
});

/** A widget with a panel as short as the launcher (485 px of transcript), so a few answers overflow it. */
async function shortWidget(): Promise<KbWidget> {
  return fixture<KbWidget>(html`<kb-widget kb-id="docs" token="good" mode="inline" style="--kb-widget-height: 400px"></kb-widget>`);
}

function transcript(element: KbWidget): HTMLElement {
  return shadow(element).querySelector<HTMLElement>('.transcript')!;
}

/** Whether `node` lies fully inside the visible part of the transcript. */
function inView(element: KbWidget, node: Element): boolean {
  const view = transcript(element).getBoundingClientRect();
  const box = node.getBoundingClientRect();
  return box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
}

describe('kb-widget transcript following the conversation', () => {
  it('four questions in a short panel: the latest question and its answer are scrolled into view', async () => {
    const element = await shortWidget();

    for (let count = 0; count < 4; count += 1) await askAndSettle(element, 'answer');
    await element.updateComplete;

    const questions = shadow(element).querySelectorAll('.question');
    const answers = shadow(element).querySelectorAll('.answer');
    expect(transcript(element).scrollTop).to.be.greaterThan(0);
    expect(inView(element, questions[3]!)).to.equal(true);
    expect(inView(element, answers[3]!)).to.equal(true);
  });

  for (const [width, height] of [
    [1280, 800],
    [360, 640],
  ] as const) {
    it(`launcher ${width} px wide on a page zoomed to 125 %, four long answers: the fourth question and its answer's first line in view, no "Jump to latest"`, async () => {
      await setViewport({ width, height });
      // Zoomed pages (and screens of 1.25 or 2.625 device pixels per px) scroll in fractions of a px.
      document.documentElement.style.zoom = '1.25';
      try {
        const element = await widget({ mode: 'launcher' });
        await element.show();

        for (let count = 0; count < 4; count += 1) await askAndSettle(element, 'long with code');
        await new Promise((resolve) => setTimeout(resolve, 100));

        const question = shadow(element).querySelectorAll('.question')[3]!;
        const firstLine = shadow(element).querySelectorAll('.answer')[3]!.querySelector('p')!;
        expect(firstLine.textContent).to.contain('First line of the answer');
        expect(inView(element, question)).to.equal(true);
        expect(inView(element, firstLine)).to.equal(true);
        expect(shadow(element).querySelector('.jump')).to.equal(null);
      } finally {
        document.documentElement.style.zoom = '';
        await setViewport({ width: 1024, height: 768 });
      }
    });
  }

  it('scrolled up while an answer streams: stays where the visitor reads and offers "Jump to latest" below the transcript, which scrolls to the end and returns focus to the field', async () => {
    const element = await shortWidget();
    for (let count = 0; count < 3; count += 1) await askAndSettle(element, 'answer');
    const streaming = element.ask('slow');
    await waitUntil(() => lastAnswerText(element).includes('word1'), 'tokens did not arrive', { timeout: 5000 });

    transcript(element).scrollTop = 0;
    await waitUntil(() => shadow(element).querySelector('.jump'), '"Jump to latest" did not appear');
    await waitUntil(() => lastAnswerText(element).includes('word4'), 'tokens did not arrive', { timeout: 5000 });

    expect(transcript(element).scrollTop).to.equal(0);
    const jump = shadow(element).querySelector<HTMLButtonElement>('.jump')!;
    expect(jump.textContent).to.contain(DEFAULT_STRINGS.jumpToLatest);
    // Below the transcript, not over it: it covers none of the answer.
    expect(jump.getBoundingClientRect().top).to.be.at.least(transcript(element).getBoundingClientRect().bottom);
    await expectNoAxeViolations(element);

    jump.click();
    await element.updateComplete;
    const view = transcript(element);
    expect(view.scrollHeight - view.scrollTop - view.clientHeight).to.be.lessThan(2);
    await waitUntil(() => !shadow(element).querySelector('.jump'), '"Jump to latest" stayed');
    expect(shadow(element).activeElement?.tagName).to.equal('INPUT');
    await waitUntil(() => lastAnswerText(element).includes('word8'), 'tokens did not arrive', { timeout: 5000 });
    expect(view.scrollHeight - view.scrollTop - view.clientHeight).to.be.lessThan(2);
    element.stop();
    await streaming;
  });

  it('scrolled up after the answers finished: no "Jump to latest", nothing new lies below', async () => {
    const element = await shortWidget();
    for (let count = 0; count < 3; count += 1) await askAndSettle(element, 'answer');

    transcript(element).scrollTop = 0;
    await oneEvent(transcript(element), 'scroll');
    await element.updateComplete;

    expect(shadow(element).querySelector('.jump')).to.equal(null);
  });

  it('a new question after scrolling up: the transcript follows again', async () => {
    const element = await shortWidget();
    for (let count = 0; count < 3; count += 1) await askAndSettle(element, 'answer');
    transcript(element).scrollTop = 0;
    await oneEvent(transcript(element), 'scroll');

    await askAndSettle(element, 'answer');

    const questions = shadow(element).querySelectorAll('.question');
    expect(inView(element, questions[questions.length - 1]!)).to.equal(true);
  });
});

describe('kb-widget sources', () => {
  it('citations with titles and URLs: one row per document, its title linked in a new tab, its quotes under it; an untitled document by a readable name', async () => {
    const element = await widget();

    await askAndSettle(element, 'titled');

    const rows = [...shadow(element).querySelectorAll('[part="citation"]')];
    expect(rows).to.have.length(2);
    const link = rows[0]!.querySelector<HTMLAnchorElement>('a.title')!;
    expect(link.textContent?.replace(/\s+/g, ' ').trim()).to.equal(`File system ${DEFAULT_STRINGS.newTab}`);
    expect(link.href).to.equal('https://docs.example.com/fs');
    expect(link.target).to.equal('_blank');
    expect(link.rel).to.equal('noopener noreferrer');
    expect([...rows[0]!.querySelectorAll('summary')].map((summary) => summary.textContent)).to.deep.equal([
      'Quote [1] · fs.mkdir()',
      'Quote [2] · fs.stat()',
    ]);
    expect(rows[1]!.querySelector('.title')!.tagName).to.equal('SPAN');
    expect(rows[1]!.querySelector('.title')!.textContent).to.equal('Child process');
    expect(rows[1]!.querySelector('.ref')!.textContent).to.equal('[3]');
  });

  it('opened quote: the sentences the answer used are marked, the others are not; the quote box is reachable by keyboard', async () => {
    const element = await widget();
    await askAndSettle(element, 'titled');
    const quote = shadow(element).querySelector<HTMLDetailsElement>('details')!;

    quote.open = true;

    const marked = [...quote.querySelectorAll('mark')].map((mark) => mark.textContent).join('').replace(/\s+/g, ' ');
    expect(marked).to.equal('Use fs.mkdir() with recursive: true to create missing parents');
    expect(quote.querySelector('blockquote')!.textContent).to.contain('Intro to directories.');
    const box = quote.querySelector<HTMLElement>('blockquote')!;
    expect(box.tabIndex).to.equal(0);
    await expectNoAxeViolations(element);
  });

  it('a long quote opened: it scrolls, and axe finds it reachable by keyboard', async () => {
    const element = await widget();
    await askAndSettle(element, 'titled');
    const quote = shadow(element).querySelector<HTMLDetailsElement>('details')!;
    const box = quote.querySelector<HTMLElement>('blockquote')!;
    box.style.maxHeight = '1em';

    quote.open = true;
    box.focus();

    expect(box.scrollHeight).to.be.greaterThan(box.clientHeight);
    expect(shadow(element).activeElement).to.equal(box);
    await expectNoAxeViolations(element);
  });

  it('citation URLs: https and this site over http are links; javascript:, data:, another site over http and relative URLs are not', async () => {
    const element = await widget();

    await askAndSettle(element, 'link safety');

    const rows = [...shadow(element).querySelectorAll('[part="citation"]')].map((row) => [
      row.querySelector('.title')!.textContent!.replace(DEFAULT_STRINGS.newTab, '').trim(),
      row.querySelector('a')?.getAttribute('href') ?? null,
    ]);
    expect(rows).to.deep.equal([
      ['Script', null],
      ['Other site over HTTP', null],
      ['This site over HTTP', `${location.origin}/docs/c`],
      ['Data', null],
      ['Not a URL', null],
    ]);
  });
});

describe('kb-widget suggestions and questions', () => {
  it('suggestion with a code span: shown as code without backticks; clicked, it asks that question', async () => {
    const element = await widget();
    await askAndSettle(element, 'code');
    const chip = shadow(element).querySelector<HTMLButtonElement>('.chip')!;

    expect(chip.textContent).to.equal('How do I use readline.createInterface()?');
    expect(chip.querySelector('code')?.textContent).to.equal('readline.createInterface()');

    chip.click();
    await waitUntil(() => shadow(element).querySelectorAll('.question').length === 2);
    const question = shadow(element).querySelectorAll('.question')[1]!;
    expect(question.textContent).to.equal('How do I use readline.createInterface()?');
    const requests = (await (await fetch('/scripted/requests')).json()) as { question: string }[];
    expect(requests.at(-1)?.question).to.equal('How do I use `readline.createInterface()`?');
  });
});

describe('kb-widget copy', () => {
  /** Records what the widget writes through the real Clipboard API. */
  function recordClipboard(): string[] {
    const written: string[] = [];
    const writeText = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = async (text: string) => {
      written.push(text);
      return writeText(text).catch(() => undefined);
    };
    return written;
  }

  it('Copy answer: the answer and its sources are copied; the button and a status region say "Copied", then the button comes back', async () => {
    const element = await widget();
    const written = recordClipboard();
    await askAndSettle(element, 'titled');
    const button = shadow(element).querySelector<HTMLButtonElement>('.actions .copy')!;
    expect(button.textContent?.trim()).to.equal(DEFAULT_STRINGS.copyAnswer);

    button.click();
    await waitUntil(() => button.textContent?.trim() === DEFAULT_STRINGS.copied, 'the button did not say Copied');

    expect(written).to.have.length(1);
    expect(written[0]).to.contain('Use `fs.mkdir()` with `recursive: true`');
    expect(written[0]).to.contain('[1] File system › fs.mkdir() https://docs.example.com/fs#fs-mkdir');
    expect(written[0]).to.contain('[3] Child process');
    expect(shadow(element).querySelector('p[role="status"]')!.textContent).to.equal(DEFAULT_STRINGS.copied);
    await waitUntil(() => button.textContent?.trim() === DEFAULT_STRINGS.copyAnswer, 'the button did not come back', { timeout: 4000 });
  });

  it('code block: its Copy code button copies the code alone', async () => {
    const element = await widget();
    const written = recordClipboard();
    await askAndSettle(element, 'code');
    const button = shadow(element).querySelector<HTMLButtonElement>('.answer .code .copy')!;
    expect(button.textContent?.trim()).to.equal(DEFAULT_STRINGS.copyCode);

    button.click();
    await waitUntil(() => written.length === 1);

    expect(written[0]).to.equal("fs.mkdirSync('a/b', { recursive: true });");
    await expectNoAxeViolations(element);
  });
});

async function pressControlK(): Promise<void> {
  await sendKeys({ down: 'Control' });
  await sendKeys({ press: 'k' });
  await sendKeys({ up: 'Control' });
}

describe('kb-widget launcher greeting, hotkey and support', () => {
  it('launcher opened before any question: the greeting and the starter questions; distinct names for open and close', async () => {
    const element = await fixture<KbWidget>(html`<kb-widget
      kb-id="docs"
      token="good"
      greeting="Hi! Ask me about the docs."
      starter-questions='["answer"]'
    ></kb-widget>`);

    await element.show();

    expect(shadow(element).querySelector('.greeting')?.textContent).to.equal('Hi! Ask me about the docs.');
    expect(shadow(element).querySelectorAll('.chip')).to.have.length(1);
    expect(shadow(element).querySelector('.launcher')!.textContent?.trim()).to.equal('Open the assistant');
    expect(shadow(element).querySelector('.close')!.getAttribute('aria-label')).to.equal('Close the assistant');
    await Promise.all(shadow(element).getAnimations().map((animation) => animation.finished));
    await expectNoAxeViolations(element);
  });

  it('hotkey set: Ctrl+K opens the panel with focus in the field; without hotkey, Ctrl+K does nothing', async () => {
    const plain = await widget({ mode: 'launcher' });
    await pressControlK();
    await plain.updateComplete;
    expect(shadow(plain).querySelector('.panel')!.hasAttribute('hidden')).to.equal(true);
    plain.remove();

    const element = await fixture<KbWidget>(html`<kb-widget kb-id="docs" token="good" hotkey></kb-widget>`);
    expect(shadow(element).querySelector('.launcher')!.getAttribute('aria-keyshortcuts')).to.equal('Control+K Meta+K');
    await pressControlK();

    await waitUntil(() => shadow(element).activeElement?.tagName === 'INPUT', 'focus did not enter the panel');
    expect(shadow(element).querySelector('.panel')!.hasAttribute('hidden')).to.equal(false);
  });

  it('abstention with support-url: a "Contact support" link opening a new tab; without support-url, no link', async () => {
    const element = await widget();
    element.supportUrl = 'https://example.com/support';
    await askAndSettle(element, 'abstain');

    const link = shadow(element).querySelector<HTMLAnchorElement>('.actions a')!;
    expect(link.textContent?.replace(/\s+/g, ' ').trim()).to.equal(`${DEFAULT_STRINGS.contactSupport} ${DEFAULT_STRINGS.newTab}`);
    expect(link.href).to.equal('https://example.com/support');
    expect(link.target).to.equal('_blank');
    expect(link.rel).to.equal('noopener noreferrer');
    await expectNoAxeViolations(element);

    element.supportUrl = undefined;
    await element.updateComplete;
    expect(shadow(element).querySelector('.actions a')).to.equal(null);
  });

  it('support-url relative or javascript:: a relative one resolves against the page, javascript: gets no link', async () => {
    const element = await widget();
    element.supportUrl = '/help';
    await askAndSettle(element, 'abstain');
    expect(shadow(element).querySelector<HTMLAnchorElement>('.actions a')!.href).to.equal(`${location.origin}/help`);

    element.supportUrl = 'javascript:alert(1)';
    await element.updateComplete;
    expect(shadow(element).querySelector('.actions a')).to.equal(null);
  });
});

describe('kb-widget retries after 429', () => {
  it('refused with Retry-After 2: the retry button counts down and does nothing until then; the retried question replaces the failed one', async () => {
    const element = await widget({ token: 'busy-once' });
    await askAndSettle(element, 'answer');
    const retry = () => shadow(element).querySelector<HTMLButtonElement>('.retry')!;
    expect(retry().textContent?.trim()).to.equal('Try again in 2 s');
    expect(retry().getAttribute('aria-disabled')).to.equal('true');
    await expectNoAxeViolations(element);

    retry().click();
    await waitUntil(() => retry().textContent?.trim() === 'Try again in 1 s', 'the countdown did not advance', { timeout: 2000 });
    await waitUntil(() => retry().textContent?.trim() === DEFAULT_STRINGS.retry, 'the countdown did not end', { timeout: 2000 });
    expect(retry().hasAttribute('aria-disabled')).to.equal(false);
    const answered = oneEvent(element, 'kb-widget-answer');
    retry().click();
    await answered;
    await element.updateComplete;

    const requests = (await (await fetch('/scripted/requests')).json()) as unknown[];
    expect(requests).to.have.length(2);
    expect([...shadow(element).querySelectorAll('.question')].map((question) => question.textContent)).to.deep.equal(['answer']);
    expect(shadow(element).querySelector('.notice')).to.equal(null);
    expect(lastAnswerText(element)).to.contain('Use mkdir');
  });
});

describe('kb-widget conversation kept for the tab', () => {
  it('element recreated (a reload): the finished turns are shown again, sources included', async () => {
    const first = await widget();
    await askAndSettle(first, 'answer');
    await askAndSettle(first, 'titled');
    first.remove();

    const second = await widget();

    expect([...shadow(second).querySelectorAll('.question')].map((question) => question.textContent)).to.deep.equal(['answer', 'titled']);
    expect(shadow(second).querySelectorAll('[part="citation"]')).to.have.length(3);
    await askAndSettle(second, 'answer');
    expect(shadow(second).querySelectorAll('.question')).to.have.length(3);
  });

  it('"New conversation": clears the transcript and what was kept, offers the starters again', async () => {
    const first = await widget();
    await askAndSettle(first, 'answer');

    shadow(first).querySelector<HTMLButtonElement>('.new')!.click();
    await first.updateComplete;

    expect(shadow(first).querySelectorAll('.question')).to.have.length(0);
    expect(shadow(first).querySelectorAll('.chip')).to.have.length(2);
    expect(shadow(first).activeElement?.tagName).to.equal('INPUT');
    first.remove();
    const second = await widget();
    expect(shadow(second).querySelectorAll('.question')).to.have.length(0);
  });

  it('another knowledge base or service: its own conversation', async () => {
    const first = await widget();
    await askAndSettle(first, 'answer');

    const other = await fixture<KbWidget>(html`<kb-widget kb-id="other" token="good" mode="inline"></kb-widget>`);
    const elsewhere = await widget({ baseUrl: 'https://kb.example.com' });

    expect(shadow(other).querySelectorAll('.question')).to.have.length(0);
    expect(shadow(elsewhere).querySelectorAll('.question')).to.have.length(0);
  });
});
