import { describe, expect, test } from 'vitest';
import { MIN_EXAMPLE_LINES, fenceCodeExample, findCodeExample } from './code-example.ts';

const TREE = '```\n- txtDir\n-- file.txt\n- app.js\n```';
const CODE = "```\nimport { stat } from 'node:fs';\nstat('a.txt', (err, stats) => console.log(stats.size));\n```";

describe('findCodeExample', () => {
  test('section of two passages, code only in the second: that code, with its passage', () => {
    const first = { text: 'Returns the file status.' };
    const second = { text: `For example:\n\n${CODE}` };

    const example = findCodeExample([first, second]);

    expect(example?.passage).toBe(second);
    expect(example?.code).toBe("import { stat } from 'node:fs';\nstat('a.txt', (err, stats) => console.log(stats.size));");
  });

  test('a directory tree before the code: skipped, it illustrates and is not an example to follow', () => {
    const example = findCodeExample([{ text: `Given this structure:\n\n${TREE}\n\nThe program:\n\n${CODE}` }]);

    expect(example?.code).toContain('import { stat }');
  });

  test('block introduced as output ("The output is similar to:"): skipped for the code after it', () => {
    const output = '```\nNAME: web\nSTATUS: Running\n```';
    const command = '```\nkubectl apply -f pod.yaml\n```';

    const example = findCodeExample([{ text: `The output is similar to:\n\n${output}\n\nApply it:\n\n${command}` }]);

    expect(example?.code).toBe('kubectl apply -f pod.yaml');
  });

  test('code holding a Hugo shortcode: skipped, it is not what a reader can run', () => {
    const example = findCodeExample([{ text: '```\nversion: v{{< skew currentVersion >}}\n```' }]);

    expect(example).toBeUndefined();
  });

  test('no fenced block: undefined', () => {
    expect(findCodeExample([{ text: 'Only prose here.' }])).toBeUndefined();
  });
});

describe('fenceCodeExample', () => {
  const lines = Array.from({ length: 10 }, (_, index) => `const value${index} = compute(${index});`);

  test('code that fits: fenced whole', () => {
    expect(fenceCodeExample('run();\nstop();', 100)).toBe('```\nrun();\nstop();\n```');
  });

  test('code longer than the budget: cut after a whole line, … on the last line, within the budget', () => {
    const fenced = fenceCodeExample(lines.join('\n'), 200);

    expect(fenced).toBeDefined();
    expect(fenced!.length).toBeLessThanOrEqual(200);
    expect(fenced!.endsWith('\n…\n```')).toBe(true);
    for (const line of fenced!.split('\n').slice(1, -2)) expect(lines).toContain(line);
  });

  test('blank line late in what fits: cut there, at a statement boundary', () => {
    const code = [...lines.slice(0, 4), '', ...lines.slice(4)].join('\n');

    // Room for 6 lines (4, the blank one, 1): the blank line keeps most of them, so the cut is there.
    const fenced = fenceCodeExample(code, 150);

    expect(fenced).toBe(`\`\`\`\n${lines.slice(0, 4).join('\n')}\n…\n\`\`\``);
  });

  test(`room for fewer than ${MIN_EXAMPLE_LINES} lines: no example`, () => {
    expect(fenceCodeExample(lines.join('\n'), 80)).toBeUndefined();
  });
});
