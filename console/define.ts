import { KbConsoleApp } from './console-app.ts';
import { KbCopyableText } from './copyable-text.ts';
import { KbCuratedAnswersTab } from './curated-answers-tab.ts';
import { KbDevelopersTab } from './developers-tab.ts';
import { KbDocumentsTab } from './documents-tab.ts';
import { KbInsightsTab } from './insights-tab.ts';
import { KbKnowledgeBaseView } from './kb-view.ts';
import { KbMembersTab } from './members-tab.ts';
import { KbSetPasswordPage } from './set-password-page.ts';
import { KbSignInPage } from './sign-in-page.ts';
import { KbSiteImport } from './site-import.ts';
import { KbWidgetPreview } from './widget-preview.ts';

/** The console's elements by tag name. */
const ELEMENTS = {
  'kb-console-app': KbConsoleApp,
  'kb-sign-in-page': KbSignInPage,
  'kb-set-password-page': KbSetPasswordPage,
  'kb-knowledge-base-view': KbKnowledgeBaseView,
  'kb-documents-tab': KbDocumentsTab,
  'kb-site-import': KbSiteImport,
  'kb-insights-tab': KbInsightsTab,
  'kb-curated-answers-tab': KbCuratedAnswersTab,
  'kb-members-tab': KbMembersTab,
  'kb-developers-tab': KbDevelopersTab,
  'kb-widget-preview': KbWidgetPreview,
  'kb-copyable-text': KbCopyableText,
} as const;

/** Registers the console's elements; idempotent, like the widget's `defineKbWidget`. */
export function defineConsoleElements(): void {
  for (const [tagName, element] of Object.entries(ELEMENTS)) {
    if (!customElements.get(tagName)) customElements.define(tagName, element);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kb-console-app': KbConsoleApp;
    'kb-sign-in-page': KbSignInPage;
    'kb-set-password-page': KbSetPasswordPage;
    'kb-knowledge-base-view': KbKnowledgeBaseView;
    'kb-documents-tab': KbDocumentsTab;
    'kb-site-import': KbSiteImport;
    'kb-insights-tab': KbInsightsTab;
    'kb-curated-answers-tab': KbCuratedAnswersTab;
    'kb-members-tab': KbMembersTab;
    'kb-developers-tab': KbDevelopersTab;
    'kb-widget-preview': KbWidgetPreview;
    'kb-copyable-text': KbCopyableText;
  }
}
