import { resolve } from 'node:path';
import type { StoreLocation } from './store/open-store.ts';

/**
 * The commands the startup banner prints (server/main.ts), written so that
 * they work as printed in another terminal started in the project folder,
 * whose environment has none of this server's variables: the store's
 * settings that are not the defaults go before the command, so the command
 * line reaches this server's store rather than creating an empty one.
 */

/** What the banner's commands must reproduce of this server's configuration. */
export interface BannerSettings {
  /** Where this server's store is. */
  location: StoreLocation;
  /** The embedded store's folder, absolute (`KB_DATA_DIR`). */
  dataDir: string;
  /** The folder the command will be run from (the project folder); `KB_DATA_DIR` is printed when the data folder is not its `.data`. */
  projectDir: string;
  /** The demo page's port (`KB_DEMO_PORT`); 0 when the demo page is off. */
  demoPort: number;
}

/** The default demo port, whose origin a token is issued for when the demo page is off (any origin does for `curl`). */
const DEFAULT_DEMO_PORT = 5173;

/**
 * `npm run --silent kb -- token issue` for the demo knowledge base, allowing
 * the demo page's origin, with the variables the command needs.
 *
 * @param kbId the knowledge base to issue for
 */
export function tokenIssueCommand(kbId: string, settings: BannerSettings): string {
  const origin = `http://localhost:${settings.demoPort === 0 ? DEFAULT_DEMO_PORT : settings.demoPort}`;
  return `${storeVariables(settings)}npm run --silent kb -- token issue --kb ${kbId} --origin ${origin}`;
}

/**
 * The variables that point the command line at this server's store, each
 * followed by a space, or nothing when the defaults do. A PostgreSQL URL
 * with a password is not printed: the command names `$DATABASE_URL` instead.
 */
export function storeVariables(settings: BannerSettings): string {
  const { location } = settings;
  if (location.kind === 'sqlite') {
    return resolve(settings.dataDir) === resolve(settings.projectDir, '.data') ? '' : `KB_DATA_DIR=${shellWord(settings.dataDir)} `;
  }
  let url = '"$DATABASE_URL"';
  try {
    if (new URL(location.url).password === '') url = shellWord(location.url);
  } catch {
    // An unparsable URL is not printed either.
  }
  return `DATABASE_URL=${url} ${location.schema === undefined ? '' : `KB_PG_SCHEMA=${shellWord(location.schema)} `}`;
}

/** A value as one POSIX shell word: as it is when it holds only safe characters, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
