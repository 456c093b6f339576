import { describe, expect, test } from 'vitest';
import { FrontMatterError, splitFrontMatter } from './front-matter.ts';

describe('splitFrontMatter', () => {
  test('YAML block with the fields kb-widget reads: parsed, body starts after the closing line', () => {
    const source = [
      '---',
      'title: Volumes',
      'linkTitle: Vols',
      'description: >',
      '  Ways to provide storage',
      '  to Pods.',
      'content_type: concept',
      'weight: 10',
      'url: /docs/storage/volumes/',
      'slug: vols',
      'aliases:',
      '  - /docs/old-volumes/',
      'draft: false',
      '---',
      '',
      '## Why volumes',
    ].join('\n');

    const split = splitFrontMatter(source);

    expect(split.format).toBe('yaml');
    expect(split.frontMatter).toEqual({
      title: 'Volumes',
      linkTitle: 'Vols',
      description: 'Ways to provide storage to Pods.',
      url: '/docs/storage/volumes/',
      slug: 'vols',
      aliases: ['/docs/old-volumes/'],
      draft: false,
    });
    expect(split.body).toBe('\n## Why volumes');
  });

  test('TOML block between +++ lines: parsed with the same fields', () => {
    const source = '+++\ntitle = "Install"\ndescription = "How to install."\ndraft = true\naliases = ["/setup/"]\n+++\nBody text.\n';

    const split = splitFrontMatter(source);

    expect(split.format).toBe('toml');
    expect(split.frontMatter).toEqual({ title: 'Install', description: 'How to install.', aliases: ['/setup/'], draft: true });
    expect(split.body).toBe('Body text.\n');
  });

  test('no front matter: the source is the body, nothing set', () => {
    const source = '# Title\n\n---\n\nAfter a rule.';

    const split = splitFrontMatter(source);

    expect(split).toEqual({ format: 'none', frontMatter: { aliases: [], draft: false }, body: source });
  });

  test('CRLF line ends, a byte-order mark and an empty block: read as a block', () => {
    const split = splitFrontMatter('\uFEFF---\r\n---\r\nText.\r\n');

    expect(split.format).toBe('yaml');
    expect(split.frontMatter).toEqual({ aliases: [], draft: false });
    expect(split.body).toBe('Text.\r\n');
  });

  test('YAML ended by "...", numbers and dates as titles, one alias as a string: read as text', () => {
    const split = splitFrontMatter('---\ntitle: 2024\ndate: 2024-05-13\naliases: /old/\n...\nBody');

    expect(split.frontMatter).toEqual({ title: '2024', aliases: ['/old/'], draft: false });
    expect(split.body).toBe('Body');
  });

  test('Jekyll names (permalink, redirect_from): read as url and aliases', () => {
    const split = splitFrontMatter('---\npermalink: /guide/\nredirect_from: [/a/, /b/]\n---\n');

    expect(split.frontMatter).toMatchObject({ url: '/guide/', aliases: ['/a/', '/b/'] });
  });

  test('YAML that does not parse: FrontMatterError naming the file line', () => {
    const source = '---\ntitle: Volumes\nfoo: [1, 2\nbar: x: y\n---\nBody';

    expect(() => splitFrontMatter(source)).toThrow(FrontMatterError);
    expect(() => splitFrontMatter(source)).toThrow(/^The YAML front matter does not parse \(line 4\): /);
  });

  test('TOML that does not parse: FrontMatterError naming the file line', () => {
    expect(() => splitFrontMatter('+++\ntitle = "a"\nweight = \n+++\n')).toThrow(
      /^The TOML front matter does not parse \(line 3\): invalid value/,
    );
  });

  test('a block never closed: FrontMatterError, not a body full of metadata', () => {
    expect(() => splitFrontMatter('---\ntitle: Volumes\n\n# Volumes\n')).toThrow(
      new FrontMatterError('The front matter opened by "---" on line 1 is never closed'),
    );
  });

  test('a block that is a list, not fields: FrontMatterError', () => {
    expect(() => splitFrontMatter('---\n- a\n- b\n---\n')).toThrow(/not a mapping of fields/);
  });

  test('fields of the wrong type: FrontMatterError naming the field', () => {
    expect(() => splitFrontMatter('---\ndraft: maybe\n---\n')).toThrow('Front matter field "draft" must be true or false, not "maybe"');
    expect(() => splitFrontMatter('---\ntitle: [a, b]\n---\n')).toThrow('Front matter field "title" must be text, not a list or mapping');
  });

  test('a key given twice (kubernetes.io glossary pages): the last value, as Hugo reads it', () => {
    const split = splitFrontMatter('---\ntitle: Sidecar\nfull_link:\nfull_link: /docs/sidecar/\ntitle: Sidecar Container\n---\n');

    expect(split.frontMatter.title).toBe('Sidecar Container');
  });

  test('blank title and null description: treated as not set', () => {
    const split = splitFrontMatter('---\ntitle: "  "\ndescription:\n---\n');

    expect(split.frontMatter).toEqual({ aliases: [], draft: false });
  });
});
