import { CONSOLE_CSP } from '../../protocol/console-csp.ts';

/**
 * The console's style policy in a browser test page: the `style-src`
 * directive of the policy the server sends with `/console` (CONSOLE_CSP),
 * enforced through a `<meta http-equiv="Content-Security-Policy">` in the
 * document's head, so an inline `style` attribute is blocked exactly as on
 * the console page. Only the style directive is taken: the test runner's own
 * inline scripts and socket would break under the rest. A page cannot drop
 * a policy once it holds it, so the policy lasts until the test file ends.
 *
 * @returns the `securitypolicyviolation` events seen since the call (the
 *   array grows as they arrive; they are composed, so one in a shadow root
 *   reaches the document)
 */
export function enforceConsoleStylePolicy(): SecurityPolicyViolationEvent[] {
  const styleDirective = CONSOLE_CSP.split(';')
    .map((directive) => directive.trim())
    .find((directive) => directive.startsWith('style-src '));
  if (styleDirective === undefined) throw new Error(`The console's policy has no style-src directive: "${CONSOLE_CSP}"`);
  const violations: SecurityPolicyViolationEvent[] = [];
  document.addEventListener('securitypolicyviolation', (event) => violations.push(event));
  const meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = styleDirective;
  document.head.append(meta);
  return violations;
}
