import { describe, expect, test } from 'vitest';
import { removeSiteMarkup } from './site-markup.ts';

describe('removeSiteMarkup', () => {
  test('markup inside fenced code and inline code: kept verbatim', () => {
    const source = [
      'Write `{{< note >}}` or `:::tip`.',
      '',
      '```yaml',
      'version: v{{< skew currentVersion >}}',
      '<!-- kept -->',
      ':::note',
      "import x from 'y';",
      '```',
      '',
      '!!! note',
      '    ~~~',
      '    {{% include "x" %}}',
      '    ~~~',
    ].join('\n');

    const result = removeSiteMarkup(source);

    expect(result).toContain('Write `{{< note >}}` or `:::tip`.');
    expect(result).toContain(['```yaml', 'version: v{{< skew currentVersion >}}', '<!-- kept -->', ':::note', "import x from 'y';", '```'].join('\n'));
    expect(result).toContain('~~~\n{{% include "x" %}}\n~~~');
  });

  test("Hugo's escaped shortcodes: shown as the literal shortcode, in prose and code, never expanded", () => {
    const source = 'Use {{</* note */>}} … {{</* /note */>}}.\n\n```\n{{%/* heading "whatsnext" */%}}\n```';

    expect(removeSiteMarkup(source)).toBe('Use {{< note >}} … {{< /note >}}.\n\n```\n{{% heading "whatsnext" %}}\n```');
  });

  test('Hugo highlight shortcode: a fenced code block with its language, content verbatim', () => {
    const source = 'Config:\n\n{{< highlight yaml "linenos=false,hl_lines=2" >}}\nkind: Pod\nname: {{< x >}}\n{{< /highlight >}}\n';

    expect(removeSiteMarkup(source)).toBe('Config:\n\n```yaml\nkind: Pod\nname: {{< x >}}\n```\n');
  });

  test('Hugo tab with a codelang (Kubernetes, Docsy): its name, then its content as a fenced code block - a manifest\'s comments are not prose', () => {
    const source = [
      '{{< tabs name="hostpath_examples" >}}',
      '{{< tab name="Linux node" codelang="yaml" >}}',
      '# mount /data/foo, but only if that directory already exists',
      'kind: Pod',
      '{{< /tab >}}',
      '{{< /tabs >}}',
    ].join('\n');

    expect(removeSiteMarkup(source)).toBe('\nLinux node\n\n```yaml\n# mount /data/foo, but only if that directory already exists\nkind: Pod\n```\n');
  });

  test('Hugo code tabs indented into a list item: the fences keep the item\'s indentation', () => {
    const source = ['1. Download it:', '', '   {{< tab name="ARM64" codelang="bash" >}}', '   curl -LO https://dl.k8s.io/arm64/kubectl', '   {{< /tab >}}'].join('\n');

    expect(removeSiteMarkup(source)).toBe('1. Download it:\n\n   ARM64\n\n   ```bash\n   curl -LO https://dl.k8s.io/arm64/kubectl\n   ```');
  });

  test('HTML comments, also spanning lines and holding shortcodes: removed', () => {
    const source = 'A <!-- inline --> B\n\n<!--\n{{< note >}}\nold\n{{< /note >}}\n-->\nC';

    expect(removeSiteMarkup(source)).toBe('A  B\n\n\nC');
  });

  test('the families together: only the prose is left', () => {
    const source = [
      "import Tabs from '@theme/Tabs';",
      '',
      ':::note',
      'Pods need a {{< glossary_tooltip text="node" term_id="node" >}}.',
      ':::',
      '',
      '!!! warning "Disk pressure"',
      '    Evictions start at 85%.',
      '',
      '<Tabs><TabItem value="cli" label="CLI">Run kubectl.</TabItem></Tabs>',
    ].join('\n');

    const words = removeSiteMarkup(source).split(/\s+/).filter(Boolean).join(' ');

    expect(words).toBe('Pods need a node. Disk pressure Evictions start at 85%. CLIRun kubectl.');
  });

  test('plain markdown: unchanged', () => {
    const source = '# Title\n\nSome *text* with `code`, a [link](https://example.com) and <b>HTML</b>.\n\n- item\n';

    expect(removeSiteMarkup(source)).toBe(source);
  });
});
