/**
 * A compile-time check of the browser program (tsconfig.browser.json, which
 * alone includes this module; nothing imports it): Node.js's types are not in
 * it (docs/architecture.md "The runtimes' boundaries").
 *
 * `types: []` keeps them out only until browser code imports a server module
 * whose packages' declarations reference them (pg's and better-sqlite3's do):
 * then `process` is a global, and this alias no longer compiles.
 */
type Holds<Condition extends true> = Condition;

/** Fails to compile when Node.js's global `process` is declared in the browser program. */
export type NodeTypesAbsent = Holds<'process' extends keyof typeof globalThis ? 'Node.js types reached the browser code' : true>;
