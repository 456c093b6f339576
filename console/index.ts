/**
 * Entry of the console bundle (`dist/console/console.js`, served at
 * `/console/console.js` to the page at `/console`): registers the console's
 * elements; the page's `<kb-console-app>` then renders.
 */
import './zod-jitless.ts';
import { defineConsoleElements } from './define.ts';

defineConsoleElements();
