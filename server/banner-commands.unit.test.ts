import { describe, expect, test } from 'vitest';
import { tokenIssueCommand, type BannerSettings } from './banner-commands.ts';

const PROJECT = '/home/me/kb-widget';

function settings(overrides: Partial<BannerSettings> = {}): BannerSettings {
  return { location: { kind: 'sqlite', path: `${PROJECT}/.data/kb.sqlite` }, dataDir: `${PROJECT}/.data`, projectDir: PROJECT, demoPort: 5173, ...overrides };
}

describe('tokenIssueCommand', () => {
  test('the defaults: the plain command, for the demo page\'s origin', () => {
    expect(tokenIssueCommand('node-docs', settings())).toBe('npm run --silent kb -- token issue --kb node-docs --origin http://localhost:5173');
  });

  test('KB_DATA_DIR and KB_DEMO_PORT set: the data folder before the command, the demo page\'s own port in the origin', () => {
    const command = tokenIssueCommand('node-docs', settings({ dataDir: '/tmp/kb data', location: { kind: 'sqlite', path: '/tmp/kb data/kb.sqlite' }, demoPort: 18173 }));

    expect(command).toBe("KB_DATA_DIR='/tmp/kb data' npm run --silent kb -- token issue --kb node-docs --origin http://localhost:18173");
  });

  test('PostgreSQL without a password: its URL and schema before the command; with a password: $DATABASE_URL, never the password', () => {
    const open = tokenIssueCommand('kb', settings({ location: { kind: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/kb', schema: 'tenant_a' } }));
    const secret = tokenIssueCommand('kb', settings({ location: { kind: 'postgres', url: 'postgres://app:s3cret@db:5432/kb' } }));

    expect(open).toBe('DATABASE_URL=postgres://postgres@127.0.0.1:5432/kb KB_PG_SCHEMA=tenant_a npm run --silent kb -- token issue --kb kb --origin http://localhost:5173');
    expect(secret).toBe('DATABASE_URL="$DATABASE_URL" npm run --silent kb -- token issue --kb kb --origin http://localhost:5173');
    expect(secret).not.toContain('s3cret');
  });

  test('demo page off: a localhost origin all the same (a server call sends no Origin)', () => {
    expect(tokenIssueCommand('node-docs', settings({ demoPort: 0 }))).toMatch(/--origin http:\/\/localhost:5173$/);
  });
});
