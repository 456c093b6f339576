import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { Insights } from '../protocol/console-protocol.ts';
import { TITLE_SEPARATOR } from '../protocol/query-terms.ts';
import { consoleStyles } from './console-styles.ts';
import { parseAnswerMarkdown } from '../widget/answer-markdown.ts';
import { NO_CITATION_LINKS, renderAnswer } from '../widget/answer-markdown-render.ts';

/** Periods offered, days. */
const PERIODS = [7, 30, 90] as const;

/**
 * The Insights tab (editors and owners): what visitors asked over a period
 * and where the documentation falls short, from the question log - the
 * questions and abstentions of each day as a bar chart that is also a
 * table (each day a row, its counts in words, its bars drawn to scale as
 * SVG, whose geometry the console's `style-src 'self'` does not govern, where
 * an inline `style` would be blocked),
 * the coverage gaps (questions abstained on, grouped, most asked first,
 * each with "Answer this", which opens the Curated answers tab's form with
 * the question, or a note once a curated answer covers it),
 * the answers rated 👎 with their reasons, the problem reports with the
 * reported passage (as its `source_span` located it, its markdown rendered
 * as the widget renders answers; a note once its document changed), and a
 * CSV export of every question of the period.
 *
 * @tagname kb-insights-tab
 * @summary Questions, abstentions, coverage gaps and 👎 answers.
 */
export class KbInsightsTab extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      svg.day-bars {
        display: block;
        inline-size: 100%;
        block-size: 0.8rem;
      }
      .bar {
        fill: #1a5fb4;
      }
      .bar.abstained {
        fill: #c64600;
      }
      .chart td {
        padding-block: 0.1rem;
      }
      .chart th,
      .chart td {
        padding-inline-end: 0.5rem;
      }
      /* As wide as the tab allows, up to 40rem; the bars take the room the counts leave. */
      table.chart {
        inline-size: 100%;
        max-inline-size: 40rem;
      }
      .bars {
        vertical-align: middle;
        inline-size: 50%;
      }
      .summary {
        font-size: 1.1rem;
      }
      ol.gaps li {
        margin-block: 0.5rem;
      }
      blockquote {
        margin: 0.25rem 0 0.75rem;
        padding-inline-start: 0.75rem;
        border-inline-start: 3px solid #c4c8d0;
      }
      blockquote :is(p, ul, ol, pre) {
        margin-block: 0 0.5rem;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    kbId: { attribute: 'kb-id' },
    _days: { state: true },
    _insights: { state: true },
    _error: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** Knowledge base whose questions are shown. */
  declare kbId: string;
  declare private _days: number;
  declare private _insights: Insights | undefined;
  declare private _error: string | undefined;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.kbId = '';
    this._days = 30;
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if ((changed.has('kbId') || changed.has('_days')) && this.kbId !== '') void this._load();
  }

  private async _load(): Promise<void> {
    this._insights = undefined;
    try {
      this._insights = await this.client.getInsights(this.kbId, this._days);
      this._error = undefined;
    } catch (error) {
      this._error = `The insights could not be loaded: ${(error as Error).message}`;
    }
  }

  private _renderReport(report: Insights['problem_reports'][number]) {
    const passage = report.passage;
    return html`<li>
      <p>
        <strong>${report.reason.replaceAll('_', ' ')}</strong>, reported ${report.reported_at.slice(0, 16).replace('T', ' ')} on the answer to
        “${report.question}”${report.comment ? html`: <q>${report.comment}</q>` : nothing}
      </p>
      ${passage === undefined
        ? html`<p class="hint">The reported passage's document was removed, or you may not read it.</p>`
        : html`<p>
              Passage of ${passage.url ? html`<a href=${passage.url}>${[passage.title, ...(passage.headings ?? []).slice(1)].join(TITLE_SEPARATOR)}</a>` : [passage.title, ...(passage.headings ?? []).slice(1)].join(TITLE_SEPARATOR)}
              (<code>${passage.doc_id}</code>)
            </p>
            ${passage.text === undefined
              ? html`<p class="hint">The document has changed since the report; check its current version.</p>`
              : html`<blockquote>${renderAnswer(parseAnswerMarkdown(passage.text), NO_CITATION_LINKS)}</blockquote>`}`}
    </li>`;
  }

  /** The Curated answers tab's address, with a question to answer when given. */
  private _answerLink(question?: string): string {
    const tab = `#/kb/${encodeURIComponent(this.kbId)}/answers`;
    return question === undefined ? tab : `${tab}?${new URLSearchParams({ question })}`;
  }

  private _renderChart(insights: Insights) {
    const most = Math.max(1, ...insights.per_day.map((day) => day.questions));
    /** A count's share of the busiest day, in the bars' viewBox units (0 to 100). */
    const share = (count: number) => (100 * count) / most;
    return html`<table class="chart">
      <caption>
        Questions and abstentions per day (UTC); bars: questions in blue, abstained in orange
      </caption>
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col">Questions</th>
          <th scope="col">Abstained</th>
          <th scope="col" class="bars"><span class="hint">Chart</span></th>
        </tr>
      </thead>
      <tbody>
        ${insights.per_day.map(
          (day) => html`<tr>
            <th scope="row">${day.date}</th>
            <td>${day.questions}</td>
            <td>${day.abstained}</td>
            <td class="bars" aria-hidden="true">
              <svg class="day-bars" viewBox="0 0 100 1" preserveAspectRatio="none">
                <rect class="bar" x="0" y="0" width=${share(day.questions - day.abstained)} height="1"></rect>
                <rect class="bar abstained" x=${share(day.questions - day.abstained)} y="0" width=${share(day.abstained)} height="1"></rect>
              </svg>
            </td>
          </tr>`,
        )}
      </tbody>
    </table>`;
  }

  override render() {
    const insights = this._insights;
    const csv = `/console/api/knowledge-bases/${encodeURIComponent(this.kbId)}/questions.csv?days=${this._days}`;
    return html`
      <h2>Insights</h2>
      <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
      <label for="insights-period">Period</label>
      <select id="insights-period" @change=${(event: Event) => (this._days = Number((event.currentTarget as HTMLSelectElement).value))}>
        ${PERIODS.map((days) => html`<option value=${days} ?selected=${days === this._days}>Last ${days} days</option>`)}
      </select>
      <p><a href=${csv} download>Download the questions of the period (CSV)</a></p>
      ${insights === undefined
        ? this._error
          ? nothing
          : html`<p>Loading insights…</p>`
        : html`
            <p class="summary">
              ${insights.questions} ${insights.questions === 1 ? 'question' : 'questions'}, ${insights.abstained} abstained
              (${Math.round(insights.abstention_rate * 100)} %)
            </p>
            ${this._renderChart(insights)}
            <h3>Coverage gaps</h3>
            ${insights.coverage_gaps.length === 0
              ? html`<p>No unanswered questions in this period.</p>`
              : html`<p class="hint">Questions the knowledge base abstained on, similar ones together, most asked first.</p>
                  <ol class="gaps">
                    ${insights.coverage_gaps.map(
                      (gap) => html`<li>
                        <strong>${gap.question}</strong> - asked ${gap.count} ${gap.count === 1 ? 'time' : 'times'}, last on ${gap.last_asked_at.slice(0, 10)}
                        ${gap.questions.length > 1 ? html`<br /><span class="hint">Also: ${gap.questions.slice(1).join(' · ')}</span>` : nothing}
                        <br />${gap.curated_answer_id === undefined
                          ? html`<a href=${this._answerLink(gap.question)} aria-label="Answer this: ${gap.question}">Answer this</a>`
                          : html`<span class="hint">A curated answer now answers it.</span> <a href=${this._answerLink()}>See curated answers</a>`}
                      </li>`,
                    )}
                  </ol>`}
            <h3>Answers rated 👎</h3>
            ${insights.downvoted.length === 0
              ? html`<p>No answer was rated 👎 in this period.</p>`
              : html`<table class="reflow">
                  <thead>
                    <tr>
                      <th scope="col">Question</th>
                      <th scope="col">Reason</th>
                      <th scope="col">Cited</th>
                      <th scope="col">Asked</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${insights.downvoted.map(
                      (answer) => html`<tr>
                        <td data-label="Question">${answer.question}</td>
                        <td data-label="Reason">${answer.reason?.replaceAll('_', ' ') ?? 'none given'}</td>
                        <td data-label="Cited">${answer.cited_doc_ids.length === 0 ? 'nothing' : answer.cited_doc_ids.map((docId) => html`<code>${docId}</code> `)}</td>
                        <td data-label="Asked">${answer.asked_at.slice(0, 16).replace('T', ' ')}</td>
                      </tr>`,
                    )}
                  </tbody>
                </table>`}
            <h3>Problem reports</h3>
            ${insights.problem_reports.length === 0
              ? html`<p>No problem was reported on a cited passage in this period.</p>`
              : html`<ol class="reports">
                  ${insights.problem_reports.map((report) => this._renderReport(report))}
                </ol>`}
          `}
    `;
  }
}
