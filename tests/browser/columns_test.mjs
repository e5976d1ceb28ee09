// The editor page's map from the loader's (line, column) to an offset in its text
// (viewer/src/editor/yamltext.js offsetOf), against what `thicket check` prints: on lines with
// accented, CJK and astral-plane text before the mistake, the column the CLI reports must land
// the page on the mistake's first character. (No browser: offsetOf is plain JavaScript.)
//
// Usage: node columns_test.mjs THICKET
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The page's module as the page gets it, but with the `yaml` package (which the page loads
// from the server's /yaml/) from viewer/node_modules, where the server takes it from.
const here = dirname(fileURLToPath(import.meta.url));
const viewer = join(here, '..', '..', 'viewer');
const dir = mkdtempSync(join(tmpdir(), 'thicket-columns-'));
const source = readFileSync(join(viewer, 'src', 'editor', 'yamltext.js'), 'utf8')
  .replace("'/yaml/index.js'", JSON.stringify(pathToFileURL(join(viewer, 'node_modules', 'yaml', 'browser', 'index.js')).href));
writeFileSync(join(dir, 'yamltext.mjs'), source);
const { lineStarts, offsetOf, parse, swapItems, deleteItem, insertItem, applySplices } = await import(pathToFileURL(join(dir, 'yamltext.mjs')).href);
const thicket = process.argv[2] && resolve(process.argv[2]);
if (!thicket) {
  console.error('usage: node columns_test.mjs THICKET');
  process.exit(2);
}
let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failed++;
};

try {
  writeFileSync(join(dir, 'leaves.lua'), 'local L = {}\nfunction L.Act() return true end\nreturn L\n');
  const text = [
    'tree: colonnes',
    'leaves: [leaves.lua]',
    'root:',
    '  sequence:',
    '    - log: {message: "ascii only", child: {action: Acta}}',
    '    - log: {message: "ééééé", child: {action: Actb}}',
    '    - log: {message: "日本語", child: {action: Actc}}',
    '    - log: {message: "🌲🌳 forest", child: {action: Actd}}',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'brain.yaml'), text);
  const run = spawnSync(thicket, ['check', 'brain.yaml'], { cwd: dir, encoding: 'utf8' });
  const found = [...run.stderr.matchAll(/^brain\.yaml:(\d+):(\d+): error: unknown leaf '(Act[a-d])'/gm)];
  check(run.status === 2 && found.length === 4, `thicket check reports the four unknown leaves (${found.length})`);
  const starts = lineStarts(text);
  for (const [, line, column, leaf] of found) {
    const at = offsetOf(starts, text, Number(line), Number(column));
    check(text.startsWith(leaf, at), `${leaf} at ${line}:${column} lands on it in the page (found '${text.slice(at, at + 4)}')`);
  }
  // Past the line's end and out of range: clamped, and -1 for no such line.
  check(offsetOf(starts, text, 1, 500) === starts[1], 'a column past the line stops at its end');
  check(offsetOf(starts, text, 99, 1) === -1, 'a line past the text is -1');

  // A block item's whole-line comments above it are its own: they go with it when it swaps
  // places (Up/Down), is deleted or has an item put before it (they stayed where they were, so
  // after a swap each comment sat above the other node).
  const commented = [
    'root:',
    '  sequence:',
    '    # first: look around',
    '    - condition: SeesEnemy   # rarely',
    '',
    '    # second: the attack',
    '    # (hard)',
    '    - action: Attack',
    '    - action: Patrol',
    '',
  ].join('\n');
  const seqOf = t => parse(t).contents.get('root', true).get('sequence', true);
  const swapped = applySplices(commented, swapItems(commented, seqOf(commented), 0));
  check(swapped === ['root:', '  sequence:', '    # second: the attack', '    # (hard)', '    - action: Attack', '',
    '    # first: look around', '    - condition: SeesEnemy   # rarely', '    - action: Patrol', ''].join('\n'),
  `Up/Down carries each item's comment lines with it:\n${swapped}`);
  const deleted = applySplices(commented, deleteItem(commented, seqOf(commented), 1));
  check(deleted === ['root:', '  sequence:', '    # first: look around', '    - condition: SeesEnemy   # rarely', '',
    '    - action: Patrol', ''].join('\n'), `a deleted item takes its comment lines, not the blank line above them:\n${deleted}`);
  const inserted = applySplices(commented, insertItem(commented, seqOf(commented), 1, { action: 'Wait' }));
  check(inserted.includes('    - action: Wait\n    # second: the attack\n'), `an item put before another goes above that one's comments:\n${inserted}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? `columns_test: ${failed} failed` : 'columns_test: ok');
process.exit(failed ? 1 : 0);
