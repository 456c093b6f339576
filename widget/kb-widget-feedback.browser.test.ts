import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import './index.ts';
import type { FeedbackRequest } from '../protocol/query-protocol.ts';
import type { KbWidget } from './kb-widget.ts';
import { DEFAULT_STRINGS } from './widget-strings.ts';
import { expectNoAxeViolations } from './testing/axe-in-browser.ts';

/**
 * The feedback controls of `<kb-widget>` (docs/widget.md "What a visitor gets") in Chromium,
 * against the scripted API of widget/testing/scripted-answers.mjs, whose
 * feedback endpoint records each body it accepts (`/scripted/feedback`):
 * 👍/👎 under each finished answer, the reasons and comment after 👎, and
 * "Report a problem" on each source.
 */

async function widget(token = 'good'): Promise<KbWidget> {
  return fixture<KbWidget>(html`<kb-widget kb-id="docs" token=${token} mode="inline"></kb-widget>`);
}

function shadow(element: KbWidget): ShadowRoot {
  return element.shadowRoot!;
}

async function answered(question: string, token?: string): Promise<KbWidget> {
  const element = await widget(token);
  await element.ask(question);
  await element.updateComplete;
  return element;
}

/** Feedback the scripted endpoint accepted, oldest first. */
async function received(): Promise<{ token: string; body: FeedbackRequest }[]> {
  return (await (await fetch('/scripted/feedback')).json()) as { token: string; body: FeedbackRequest }[];
}

function button(element: KbWidget, name: string): HTMLButtonElement {
  const found = [...shadow(element).querySelectorAll('button')].find((candidate) => (candidate.getAttribute('aria-label') ?? candidate.textContent?.trim()) === name);
  if (!found) throw new Error(`No button named "${name}"`);
  return found;
}

function thanks(element: KbWidget): string[] {
  return [...shadow(element).querySelectorAll('[role="status"].thanks')].map((region) => region.textContent?.trim() ?? '').filter(Boolean);
}

beforeEach(async () => {
  sessionStorage.clear();
  await fetch('/scripted/reset');
});

describe('kb-widget rating an answer', () => {
  it('finished answer: "Helpful" and "Not helpful" buttons, neither pressed, in the actions row', async () => {
    const element = await answered('answer');

    const helpful = button(element, DEFAULT_STRINGS.helpful);
    const notHelpful = button(element, DEFAULT_STRINGS.notHelpful);

    expect([helpful, notHelpful].map((rate) => rate.querySelectorAll('svg.icon[aria-hidden="true"]').length)).to.deep.equal([1, 1]);
    expect([helpful.getAttribute('aria-pressed'), notHelpful.getAttribute('aria-pressed')]).to.deep.equal(['false', 'false']);
    expect(helpful.closest('[part="actions"]')).to.not.equal(null);
    await expectNoAxeViolations(element);
  });

  it('👍: one rating up sent with the question, provenance and every citation\'s span unchanged; pressed, thanked; pressed again, nothing more', async () => {
    const element = await answered('titled');

    button(element, DEFAULT_STRINGS.helpful).click();
    await waitUntil(() => thanks(element).length === 1, 'no thanks shown');
    button(element, DEFAULT_STRINGS.helpful).click();
    button(element, DEFAULT_STRINGS.notHelpful).click();
    await element.updateComplete;

    expect(await received()).to.deep.equal([
      {
        token: 'good',
        body: {
          kind: 'rating',
          question: 'titled',
          provenance: 'generated',
          rating: 'up',
          source_spans: [{ ref: 'ref-1' }, { ref: 'ref-2' }, { ref: 'ref-3' }],
        },
      },
    ]);
    expect(thanks(element)).to.deep.equal([DEFAULT_STRINGS.thanks]);
    expect(button(element, DEFAULT_STRINGS.helpful).getAttribute('aria-pressed')).to.equal('true');
    expect(button(element, DEFAULT_STRINGS.helpful).getAttribute('aria-disabled')).to.equal('true');
    expect(shadow(element).querySelector('form.feedback')).to.equal(null);
  });

  it('👎: the optional reasons and a comment; "Out of date" and a typed comment sent once; the form gives way to thanks, which takes focus', async () => {
    const element = await answered('answer');

    button(element, DEFAULT_STRINGS.notHelpful).click();
    await element.updateComplete;
    const form = shadow(element).querySelector<HTMLFormElement>('form.feedback')!;
    expect(form.querySelector('legend')!.textContent).to.equal(DEFAULT_STRINGS.whatWentWrong);
    expect([...form.querySelectorAll('label')].map((label) => label.textContent?.trim())).to.deep.equal([
      'Incorrect',
      'Not what I asked',
      'Out of date',
      'Other',
      DEFAULT_STRINGS.comment,
    ]);
    expect(button(element, DEFAULT_STRINGS.notHelpful).getAttribute('aria-pressed')).to.equal('true');
    await expectNoAxeViolations(element);
    form.querySelector<HTMLInputElement>('input[value="out_of_date"]')!.click();
    form.querySelector('textarea')!.focus();
    await sendKeys({ type: 'The flag was renamed.' });
    button(element, DEFAULT_STRINGS.send).click();
    await waitUntil(() => thanks(element).length === 1, 'no thanks shown');

    expect((await received()).map((feedback) => feedback.body)).to.deep.equal([
      {
        kind: 'rating',
        question: 'answer',
        provenance: 'generated',
        comment: 'The flag was renamed.',
        rating: 'down',
        reason: 'out_of_date',
        source_spans: [{ ref: 'ref-1' }],
      },
    ]);
    expect(shadow(element).querySelector('form.feedback')).to.equal(null);
    await waitUntil(() => shadow(element).activeElement?.classList.contains('thanks'), 'focus did not move to the thanks');
    await expectNoAxeViolations(element);
  });

  it('👎 under a long answer in a short panel: the form opens scrolled into view, its question and first reasons visible', async () => {
    const element = await fixture<KbWidget>(html`<kb-widget kb-id="docs" token="good" mode="inline" style="--kb-widget-height: 400px"></kb-widget>`);
    await element.ask('long');
    await element.updateComplete;
    const transcript = shadow(element).querySelector('.transcript')!;

    button(element, DEFAULT_STRINGS.notHelpful).click();
    await waitUntil(() => shadow(element).querySelector('form.feedback'), 'no form');

    await waitUntil(() => {
      const view = transcript.getBoundingClientRect();
      const [legend, , second] = [...shadow(element).querySelectorAll('form.feedback legend, form.feedback label')].map((node) => node.getBoundingClientRect());
      return legend!.top >= view.top - 1 && second!.bottom <= view.bottom + 1;
    }, 'the form is not in view');
  });

  it('👎 then Send without a reason or comment: a rating down with neither', async () => {
    const element = await answered('answer');

    button(element, DEFAULT_STRINGS.notHelpful).click();
    await element.updateComplete;
    button(element, DEFAULT_STRINGS.send).click();
    await waitUntil(() => thanks(element).length === 1, 'no thanks shown');

    const [first] = await received();
    expect(first!.body).to.deep.equal({ kind: 'rating', question: 'answer', provenance: 'generated', rating: 'down', source_spans: [{ ref: 'ref-1' }] });
  });

  it('👎 pressed again: the form closes, nothing is sent, 👎 is no longer pressed', async () => {
    const element = await answered('answer');

    button(element, DEFAULT_STRINGS.notHelpful).click();
    await element.updateComplete;
    button(element, DEFAULT_STRINGS.notHelpful).click();
    await element.updateComplete;

    expect(shadow(element).querySelector('form.feedback')).to.equal(null);
    expect(button(element, DEFAULT_STRINGS.notHelpful).getAttribute('aria-pressed')).to.equal('false');
    expect(await received()).to.deep.equal([]);
  });

  it('comment: at most 1,000 characters, the counter tells how many, and the field is described by it', async () => {
    const element = await answered('answer');
    button(element, DEFAULT_STRINGS.notHelpful).click();
    await element.updateComplete;
    const comment = shadow(element).querySelector('textarea')!;

    comment.focus();
    await sendKeys({ type: 'Too short' });
    await element.updateComplete;

    const counter = shadow(element).getElementById(comment.getAttribute('aria-describedby')!)!;
    expect(counter.textContent).to.equal('9 of 1000 characters');
    expect(comment.maxLength).to.equal(1000);
  });

  it('sending fails (503): an alert says so, the form stays with what was typed, no thanks', async () => {
    const element = await answered('feedback fails');
    button(element, DEFAULT_STRINGS.notHelpful).click();
    await element.updateComplete;
    shadow(element).querySelector('textarea')!.focus();
    await sendKeys({ type: 'Kept' });

    button(element, DEFAULT_STRINGS.send).click();
    await waitUntil(() => shadow(element).querySelector('[role="alert"]'), 'no alert');

    expect(shadow(element).querySelector('[role="alert"]')!.textContent).to.equal(DEFAULT_STRINGS.feedbackFailed);
    expect(shadow(element).querySelector('textarea')!.value).to.equal('Kept');
    expect(thanks(element)).to.deep.equal([]);
    await expectNoAxeViolations(element);
  });

  it('a curated answer: its provenance qa_shortcut is sent back', async () => {
    const element = await answered('curated');

    button(element, DEFAULT_STRINGS.helpful).click();
    await waitUntil(() => thanks(element).length === 1, 'no thanks shown');

    expect((await received())[0]!.body).to.include({ provenance: 'qa_shortcut' });
  });

  it('an abstention: rated too, with provenance abstained and no spans', async () => {
    const element = await answered('abstain');

    button(element, DEFAULT_STRINGS.notHelpful).click();
    await element.updateComplete;
    shadow(element).querySelector<HTMLInputElement>('input[value="not_what_i_asked"]')!.click();
    button(element, DEFAULT_STRINGS.send).click();
    await waitUntil(() => thanks(element).length === 1, 'no thanks shown');

    expect((await received())[0]!.body).to.deep.equal({
      kind: 'rating',
      question: 'abstain',
      provenance: 'abstained',
      rating: 'down',
      reason: 'not_what_i_asked',
      source_spans: [],
    });
  });

  it('an expired token and a token provider: the rating is sent again once, with the fresh token', async () => {
    const element = await answered('answer');
    element.token = 'stale';
    element.tokenProvider = async () => 'fresh';

    button(element, DEFAULT_STRINGS.helpful).click();
    await waitUntil(() => thanks(element).length === 1, 'no thanks shown');

    expect((await received()).map((feedback) => feedback.token)).to.deep.equal(['fresh']);
  });

  it('reloaded after rating: the rating stays pressed and thanked, and cannot be sent again', async () => {
    const first = await answered('answer');
    button(first, DEFAULT_STRINGS.notHelpful).click();
    await first.updateComplete;
    button(first, DEFAULT_STRINGS.send).click();
    await waitUntil(() => thanks(first).length === 1, 'no thanks shown');
    first.remove();

    const second = await widget();
    button(second, DEFAULT_STRINGS.helpful).click();
    await second.updateComplete;

    expect(button(second, DEFAULT_STRINGS.notHelpful).getAttribute('aria-pressed')).to.equal('true');
    expect(thanks(second)).to.deep.equal([DEFAULT_STRINGS.thanks]);
    expect(await received()).to.have.length(1);
  });
});

describe('kb-widget reporting a problem with a source', () => {
  it('each citation has "Report a problem", collapsed; opened: required reasons and a comment', async () => {
    const element = await answered('titled');

    const toggles = [...shadow(element).querySelectorAll<HTMLButtonElement>('.report')];

    expect(toggles.map((toggle) => toggle.textContent?.replace(/\s+/g, ' ').trim())).to.deep.equal([
      'Report a problem [1]',
      'Report a problem [2]',
      'Report a problem [3]',
    ]);
    expect(toggles.map((toggle) => toggle.getAttribute('aria-expanded'))).to.deep.equal(['false', 'false', 'false']);
    toggles[1]!.click();
    await element.updateComplete;
    const form = shadow(element).querySelector<HTMLFormElement>('form.feedback')!;
    expect(toggles[1]!.getAttribute('aria-expanded')).to.equal('true');
    expect(form.querySelector('legend')!.textContent).to.equal(DEFAULT_STRINGS.whatIsWrong);
    expect([...form.querySelectorAll<HTMLInputElement>('input[type="radio"]')].map((radio) => [radio.value, radio.required])).to.deep.equal([
      ['incorrect', true],
      ['out_of_date', true],
      ['broken_link', true],
      ['unrelated', true],
      ['other', true],
    ]);
    await expectNoAxeViolations(element);
  });

  it('Send without a reason: nothing sent; "Broken link" chosen: that citation\'s span sent unchanged; thanks replace its button', async () => {
    const element = await answered('titled');
    shadow(element).querySelectorAll<HTMLButtonElement>('.report')[1]!.click();
    await element.updateComplete;

    button(element, DEFAULT_STRINGS.send).click();
    await element.updateComplete;
    expect(await received()).to.deep.equal([]);
    shadow(element).querySelector<HTMLInputElement>('input[value="broken_link"]')!.click();
    button(element, DEFAULT_STRINGS.send).click();
    await waitUntil(() => thanks(element).length === 1, 'no thanks shown');

    expect((await received()).map((feedback) => feedback.body)).to.deep.equal([
      { kind: 'problem', question: 'titled', provenance: 'generated', source_span: { ref: 'ref-2' }, reason: 'broken_link' },
    ]);
    expect([...shadow(element).querySelectorAll('.report')].map((toggle) => toggle.textContent?.replace(/\s+/g, ' ').trim())).to.deep.equal([
      'Report a problem [1]',
      'Report a problem [3]',
    ]);
    await expectNoAxeViolations(element);
  });

  it('360 px wide: the open report\'s choices, comment and buttons are at least 44 px tall, and axe finds nothing', async () => {
    await setViewport({ width: 360, height: 640 });
    try {
      const element = await answered('titled');
      shadow(element).querySelector<HTMLButtonElement>('.report')!.click();
      button(element, DEFAULT_STRINGS.notHelpful).click();
      await element.updateComplete;

      const targets = [...shadow(element).querySelectorAll<HTMLElement>('.feedback label, .feedback button, .report, .rate')];
      expect(targets.length).to.be.greaterThan(10);
      for (const target of targets) {
        const { height, width } = target.getBoundingClientRect();
        expect([target.textContent?.trim(), height >= 44 && width >= 44]).to.deep.equal([target.textContent?.trim(), true]);
      }
      await expectNoAxeViolations(element);
    } finally {
      await setViewport({ width: 1024, height: 768 });
    }
  });
});
