import { config } from 'zod';

/**
 * Tells zod not to compile its parsers with `new Function`, before any
 * schema is made: the console's content-security policy has no
 * `'unsafe-eval'`, and zod's probe for it (`Function("")` in a try, run
 * when an object schema is created) is itself reported as a policy
 * violation. Imported first by the console's entry (console/index.ts), so
 * it runs before the modules that define the protocol's schemas.
 */
config({ jitless: true });
