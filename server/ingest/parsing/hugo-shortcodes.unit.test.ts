import { describe, expect, test } from 'vitest';
import { renderHugoShortcodes } from './hugo-shortcodes.ts';

describe('renderHugoShortcodes', () => {
  test('paired callouts in both delimiters: content kept, tags gone', () => {
    const text = '{{< note >}}\nSet the flag first.\n{{< /note >}}\n\n{{% warning %}}Back up **etcd**.{{% /warning %}}';

    expect(renderHugoShortcodes(text)).toBe('\nSet the flag first.\n\n\nBack up **etcd**.');
  });

  test('glossary_tooltip inside a sentence: its text; without text, its term id', () => {
    const text = 'Containers in a {{< glossary_tooltip text="pod" term_id="pod" >}} share a {{< glossary_tooltip term_id="cgroup" >}}.';

    expect(renderHugoShortcodes(text)).toBe('Containers in a pod share a cgroup.');
  });

  test('tabs with named tabs alone on their lines: each tab name becomes a paragraph before its content', () => {
    const text = [
      '{{< tabs name="install" >}}',
      '{{% tab name="Ubuntu, Debian" %}}',
      'Use apt.',
      '{{% /tab %}}',
      '{{% tab name="Fedora" %}}',
      'Use dnf.',
      '{{% /tab %}}',
      '{{< /tabs >}}',
    ].join('\n');

    const paragraphs = renderHugoShortcodes(text).split(/\n\s*\n/).map((paragraph) => paragraph.trim()).filter(Boolean);

    expect(paragraphs).toEqual(['Ubuntu, Debian', 'Use apt.', 'Fedora', 'Use dnf.']);
  });

  test('a tab inside an indented list item: its name keeps the item indentation', () => {
    const text = '1. Install:\n\n   {{% tab name="Linux" %}}\n   Run it.\n   {{% /tab %}}';

    expect(renderHugoShortcodes(text)).toBe('1. Install:\n\n   \n   Linux\n\n   \n   Run it.\n   ');
  });

  test('shortcodes that pull in files or site parameters: dropped', () => {
    const text = [
      '{{% code_sample file="pods/simple-pod.yaml" %}}',
      '{{< include "task-tutorial-prereqs.md" >}} {{< version-check >}}',
      '{{< codenew file="a.yaml" >}}{{< readfile file="b.md" >}}{{< glossary_definition term_id="etcd" length="all" >}}',
      'A v{{< skew currentVersion >}} client.',
    ].join('\n');

    expect(renderHugoShortcodes(text)).toBe('\n \n\nA v client.');
  });

  test('comment and mermaid pairs: dropped with their content', () => {
    const text = 'Before.\n{{< comment >}}\nTODO: rewrite\n{{< /comment >}}\n{{< mermaid >}}\ngraph TD; A-->B\n{{< /mermaid >}}\nAfter.';

    expect(renderHugoShortcodes(text)).toBe('Before.\n\n\nAfter.');
  });

  test('ref and relref inside a link: the link target, so the link stays a link', () => {
    const text = 'See [ListMeta]({{< ref "../common-definitions/list-meta#ListMeta" >}}) and [x]({{< relref "/docs/x/" >}}).';

    expect(renderHugoShortcodes(text)).toBe('See [ListMeta](../common-definitions/list-meta#ListMeta) and [x](/docs/x/).');
  });

  test('heading shortcode in a heading: the English heading of its key, unknown keys as words', () => {
    expect(renderHugoShortcodes('## {{% heading "prerequisites" %}}\n## {{% heading "whatsnext" %}}\n## {{% heading "next_steps" %}}')).toBe(
      "## Before you begin\n## What's next\n## Next steps",
    );
  });

  test('feature-state and figure alone on their lines: their visible text as a paragraph', () => {
    const text = '{{< feature-state for_k8s_version="1.25" state="stable" >}}\n{{< figure src="/a.svg" alt="Flow" caption="How DNS queries flow." >}}';

    const paragraphs = renderHugoShortcodes(text).split(/\n\s*\n/).map((paragraph) => paragraph.trim()).filter(Boolean);

    expect(paragraphs).toEqual(['Feature state: Kubernetes v1.25 [stable]', 'How DNS queries flow.']);
  });

  test('nested pairs of one name and an unclosed opening tag: inner pair matched, stray tags dropped', () => {
    const text = '{{< note >}}a {{< note >}}b{{< /note >}} c{{< /note >}} {{< note >}}d {{< /details >}}';

    expect(renderHugoShortcodes(text)).toBe('a b c d ');
  });

  test('example pair with a file: its content (link text) kept', () => {
    expect(renderHugoShortcodes('Apply the {{< example file="policy/a.yaml" >}}privileged PSP{{< /example >}} now.')).toBe(
      'Apply the privileged PSP now.',
    );
  });

  test('text without shortcodes: unchanged', () => {
    const text = 'Templates such as {{ .Values.name }} and {{- end }} are not shortcodes.';

    expect(renderHugoShortcodes(text)).toBe(text);
  });
});
