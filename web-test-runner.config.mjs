// Widget and console tests in the system Chromium (Debian package), through
// @web/test-runner with @open-wc/testing. No browser is downloaded.
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { a11ySnapshotPlugin } from '@web/test-runner-commands/plugins';
import { scriptedAnswers } from './widget/testing/scripted-answers.mjs';

export default {
  files: ['widget/**/*.browser.test.ts', 'console/**/*.browser.test.ts'],
  nodeResolve: { exportConditions: ['production'] },
  middleware: [scriptedAnswers],
  // a11ySnapshot: Chromium's accessibility tree, for the accessible names of controls.
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.browser-tests.json' }), a11ySnapshotPlugin()],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      },
    }),
  ],
  testFramework: { config: { timeout: 10000 } },
  concurrency: 1,
};
