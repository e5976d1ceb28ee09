// The replay in a real browser: `thicket view` on a record, the page opened from file:// in
// headless chromium, then: agents' pixels where the record puts them at tick 0 and after
// scrubbing; the controls step and scrub; a click selects an agent and shows its brain with
// that tick's statuses; the plots hold the metrics' values. Screenshots go to
// BUILD/artifacts/; with THICKET_README_SCREENSHOT=PATH one is also written there (the
// README's, docs/img/viewer.png).
// Usage: node replay_test.mjs THICKET BUILD_DIR [RECORD.jsonl[.gz] | SCENARIO.yaml ...]
// (default: fixtures/small.jsonl and .gz). A scenario is run first, with
// --record BUILD_DIR/artifacts/NAME.jsonl.gz, and its record replayed; SCENARIO.yaml#a,b
// records the blackboard keys a and b too (--record-keys a,b).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage, artifactsDir, check, failed, canvasPixel, sameColor, parseRecord, sourceDir } from './lib.mjs';

const [thicket, buildDir, ...records] = process.argv.slice(2);
if (!thicket || !buildDir) {
  console.error('usage: node replay_test.mjs THICKET BUILD_DIR [RECORD...]');
  process.exit(64);
}
if (!records.length) records.push(join(sourceDir, 'tests/browser/fixtures/small.jsonl'), join(sourceDir, 'tests/browser/fixtures/small.jsonl.gz'));
const artifacts = artifactsDir(resolve(buildDir));
const STATUS_OF = { R: 'running', S: 'success', F: 'failure', '.': 'not ticked' };

const { browser, close } = await launch();
try {
  for (const [k, recordPath] of records.entries()) await testRecord(recordPath, k === records.length - 1);
  await oddRecords();
} finally {
  await close();
}
console.log(failed() ? `replay: ${failed()} check(s) failed` : 'replay: all checks passed');
process.exit(failed() ? 1 : 0);

async function testRecord(recordPath, last) {
  const [path, keys] = recordPath.split('#');
  if (path.endsWith('.yaml')) {
    recordPath = join(artifacts, basename(path).replace(/\.yaml$/, '.jsonl.gz'));
    try {
      execFileSync(thicket, ['run', path, '--record', recordPath, ...(keys ? ['--record-keys', keys] : [])],
        { stdio: 'pipe' });
    } catch (e) {
      console.log(`FAIL  thicket run ${path} --record ${recordPath}: exit ${e.status}\n${e.stderr}`);
      process.exit(1);
    }
  }
  const name = basename(recordPath).replace(/\./g, '_');
  console.log(`# ${recordPath}`);
  const html = join(artifacts, `${name}_replay.html`);
  const said = execFileSync(thicket, ['view', recordPath, '-o', html], { encoding: 'utf8' });
  check(said.includes(html), `thicket view says where it wrote the replay (${said.trim()})`);
  const raw = readFileSync(recordPath);
  const lines = parseRecord((recordPath.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8'));
  const header = lines[0], ticks = lines.filter(l => l.tick !== undefined);
  // The node tables in effect at a tick: the header's, or those of the last brains line before.
  const brainsAt = tick => lines.filter(l => l.brains_at !== undefined && l.brains_at <= tick)
    .reduce((_, l) => l.brains, header.brains);

  const { page, errors } = await openPage(browser, pathToFileURL(html).href);
  await page.evaluate(() => window.thicketViewer.ready);
  const v = (fn, arg) => page.evaluate(fn, arg);
  check(await v(() => thicketViewer.frameCount) === ticks.length, `the page holds all ${ticks.length} tick lines`);
  check(await v(() => thicketViewer.tick) === ticks[0].tick, 'it opens at the first tick');

  // Agents' pixels: at the record's position, the team's colour.
  const teamOfGroup = header.groups.map(g => g.team);
  async function checkAgentPixels(tickLine, label) {
    const shown = await v(() => thicketViewer.tick);
    check(shown === tickLine.tick, `${label}: the page shows tick ${tickLine.tick} (shows ${shown})`);
    const scale = await v(() => thicketViewer.scale());
    // Agents drawn on top of each other cannot each be seen: check those with room around them.
    const alive = tickLine.agents.filter(a => a[5] === 1);
    const lonely = alive.filter(a => alive.every(b => b === a ||
      Math.hypot(a[1] - b[1], a[2] - b[2]) * scale > 2 * Math.max(4, header.groups[b[4]].radius * scale + 3)));
    const sample = lonely.slice(0, 40);
    let good = 0;
    const bad = [];
    for (const a of sample) {
      const [sx, sy] = await v(([x, y]) => thicketViewer.worldToCanvas(x, y), [a[1], a[2]]);
      const want = await v(t => thicketViewer.teamColor(t), teamOfGroup[a[4]]);
      const got = await canvasPixel(page, sx, sy);
      if (sameColor(got, want)) good++; else bad.push(`agent ${a[0]} at ${sx.toFixed(1)},${sy.toFixed(1)}: ${got} not ${want}`);
    }
    check(sample.length > 0 && good === sample.length,
      `${label}: ${good}/${sample.length} agents have their team's colour where the record puts them${bad.length ? ' (' + bad.slice(0, 3).join('; ') + ')' : ''}`);
    return sample;
  }
  await checkAgentPixels(ticks[0], 'tick 0');
  await page.screenshot({ path: join(artifacts, `${name}_tick0.png`) });

  // The controls: +1 steps, the scrub slider seeks, the keyboard steps back.
  await page.click('#forward');
  check(await v(() => thicketViewer.tick) === ticks[1].tick, `+1 steps to tick ${ticks[1].tick}`);
  const n = Math.min(ticks.length - 1, Math.max(2, Math.round(ticks.length * 0.75)));
  await page.$eval('#scrub', (el, value) => {
    el.value = String(value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, n + 1);
  await page.keyboard.press('ArrowLeft');
  await v(() => new Promise(requestAnimationFrame));
  const tickN = ticks[n];
  const sampleN = await checkAgentPixels(tickN, `after scrubbing to tick ${tickN.tick}`);
  // And not where they were at tick 0 any more (trails off, which would draw through there).
  await v(() => thicketViewer.setTrails(0));
  await v(() => thicketViewer.render());
  const scaleN = await v(() => thicketViewer.scale());
  const gone = sampleN.map(a => [a, ticks[0].agents.find(b => b[0] === a[0])])
    .filter(([a, b]) => b && Math.hypot(a[1] - b[1], a[2] - b[2]) * scaleN > 4 * Math.max(4, header.groups[a[4]].radius * scaleN))
    .filter(([, b]) => tickN.agents.every(c => Math.hypot(c[1] - b[1], c[2] - b[2]) * scaleN > 2 * Math.max(4, header.groups[c[4]].radius * scaleN + 3)));
  let moved = 0;
  for (const [a, b] of gone) {
    const [sx, sy] = await v(([x, y]) => thicketViewer.worldToCanvas(x, y), [b[1], b[2]]);
    const team = await v(t => thicketViewer.teamColor(t), teamOfGroup[a[4]]);
    if (!sameColor(await canvasPixel(page, sx, sy), team, 30)) moved++;
  }
  check(gone.length === 0 || moved === gone.length, `${moved}/${gone.length} agents that moved are no longer drawn where tick 0 had them`);
  await v(() => thicketViewer.setTrails(12));

  // Click an agent: its brain with that tick's statuses.
  const target = sampleN[0];
  const [px, py] = await v(([x, y]) => thicketViewer.worldToPage(x, y), [target[1], target[2]]);
  await page.mouse.click(px, py);
  check(await v(() => thicketViewer.selected) === target[0], `a click on agent ${target[0]} selects it`);
  const treeAt = async (tickLine, agent = target) => {
    const brain = brainsAt(tickLine.tick)[header.groups[agent[4]].brain];
    const entry = tickLine.agents.find(a => a[0] === agent[0]);
    const nodes = await v(() => thicketViewer.treeNodes());
    const want = brain.nodes.map((node, k) => ({ id: node.id, status: STATUS_OF[entry[7][k] || '.'] }));
    const domStatuses = await page.$$eval('#brain-tree g.node', gs => gs.map(g => g.dataset.status));
    check(JSON.stringify(nodes) === JSON.stringify(want) && JSON.stringify(domStatuses) === JSON.stringify(want.map(w => w.status)),
      `tick ${tickLine.tick}: the panel draws agent ${agent[0]}'s ${brain.type} ${brain.name} (${brain.nodes.length} nodes) with the statuses "${entry[7]}"`);
    const links = brain.nodes.reduce((n, node) => n + (node.links || []).length, 0);
    check((await v(() => thicketViewer.treeLinks())).length === links, `... and its ${links} link(s) (transitions, checks)`);
  };
  await treeAt(tickN);
  const panelText = await page.textContent('#agent-panel');
  check(panelText.includes(`agent ${target[0]}`), 'the panel names the agent');
  header.keys.forEach((key, k) => {
    check(panelText.includes(key), `the panel shows the blackboard key ${key}`);
  });
  await page.screenshot({ path: join(artifacts, `${name}_selected.png`) });
  if (process.env.THICKET_README_SCREENSHOT && last) {
    await page.screenshot({ path: process.env.THICKET_README_SCREENSHOT });
    console.log(`wrote ${process.env.THICKET_README_SCREENSHOT}`);
  }
  // Back to an earlier tick: the statuses follow.
  const early = ticks.find(t => t.agents.some(a => a[0] === target[0]) &&
    t.agents.find(a => a[0] === target[0])[7] !== tickN.agents.find(a => a[0] === target[0])[7]) || ticks[0];
  await v(t => thicketViewer.seek(t), early.tick);
  if (early.agents.some(a => a[0] === target[0])) await treeAt(early);

  // One agent of every brain type the record has, selected through the page's state.
  for (const type of ['tree', 'fsm', 'machine']) {
    const agent = tickN.agents.find(a => brainsAt(tickN.tick)[header.groups[a[4]].brain].type === type);
    if (!agent) continue;
    await v(t => thicketViewer.seek(t), tickN.tick);
    await v(id => thicketViewer.select(id), agent[0]);
    await treeAt(tickN, agent);
    if (type === 'fsm') {  // SPEC 4.1: the active state path, outermost first
      const brain = brainsAt(tickN.tick)[header.groups[agent[4]].brain];
      const path = brain.nodes.filter((node, k) => node.kind === 'state' && agent[7][k] === 'R').map(node => node.id);
      const shown = await page.textContent('#agent-info');
      check(path.length > 0 && shown.includes(`states: ${path.join(' › ')}`), `the panel shows fsm agent ${agent[0]}'s active states "${path.join(' › ')}"`);
    }
  }

  // Pickups: a take event marks one taken from its tick on.
  const takes = ticks.flatMap(t => t.events.filter(e => e[0] === 'take').map(e => [t.tick, e[2]]));
  for (const [tick, pickup] of takes.slice(0, 3)) {
    const before = ticks.filter(t => t.tick < tick).pop();
    if (before) {
      await v(t => thicketViewer.seek(t), before.tick);
      check(!(await v(() => thicketViewer.pickups())).find(p => p.name === pickup).taken, `${pickup} is there at tick ${before.tick}`);
    }
    await v(t => thicketViewer.seek(t), tick);
    check((await v(() => thicketViewer.pickups())).find(p => p.name === pickup).taken, `${pickup} is taken at tick ${tick}`);
  }

  // Follow: the selected agent stays in the middle of the canvas.
  await v(id => thicketViewer.select(id), target[0]);
  await v(on => thicketViewer.setFollow(on), true);
  await v(t => thicketViewer.seek(t), tickN.tick);
  const middle = await v(([x, y]) => thicketViewer.worldToCanvas(x, y), [target[1], target[2]]);
  const canvasSize = await page.$eval('#world', c => [c.clientWidth, c.clientHeight]);
  check(Math.abs(middle[0] - canvasSize[0] / 2) < 1 && Math.abs(middle[1] - canvasSize[1] / 2) < 1,
    `follow keeps agent ${target[0]} in the middle of the view`);
  await v(on => thicketViewer.setFollow(on), false);

  // The plots hold the metrics over the ticks.
  const plots = await v(() => thicketViewer.plotData());
  check(plots.length === header.metrics.length, `one plot per metric (${header.metrics.join(', ')})`);
  plots.forEach((p, m) => {
    const wantTicks = ticks.map(t => t.tick), wantValues = ticks.map(t => t.metrics[m]);
    check(p.name === header.metrics[m] && JSON.stringify(p.ticks) === JSON.stringify(wantTicks) &&
      JSON.stringify(p.values) === JSON.stringify(wantValues), `the plot of ${header.metrics[m]} holds its ${wantValues.length} values`);
  });

  // Play runs forward.
  await v(t => thicketViewer.seek(t), ticks[0].tick);
  await page.click('#play');
  await page.waitForFunction(() => thicketViewer.frame > 0, null, { timeout: 10000 });
  await page.click('#play');
  check(true, 'play advances the tick');
  check(errors.length === 0, `no page errors and no network requests${errors.length ? ': ' + errors.join('; ') : ''}`);
  await page.close();
}

// Records `thicket view` accepts that the page read wrongly (each failed before its fix): a map's
// 'G' and 'S' cells (passable) drawn as walls, a "format" field on a tick line taken for a new
// header (the record started again), an agent id past 2^31 and a group index past 65,535
// wrapped by the page's typed arrays, and a line error written over by the progress line.
async function oddRecords() {
  console.log('# records the page once read wrongly');
  const groups = Array.from({ length: 65537 }, (_, g) => ({ name: g === 65536 ? 'far' : `g${g}`, team: g === 65536 ? 1 : 0,
    brain: 0, count: g === 65536 ? 1 : 0, first: 1, radius: 0.3 }));
  // (and, since: 'T' cells a scenario's terrain made passable drawn as walls, and a pickup
  // shown taken for the rest of the run after its first take)
  const header = { format: 'thicket-record', version: 1, scenario: 'odd', seed: 1, dt: 0.1, ticks: 2, every: 1,
    world: { bounds: [0, 0, 6, 4], map: { width: 6, height: 4, cell: 1, origin: [0, 0], rows: ['......', 'GGSS@@', 'TT....', '......'],
                                          symbols: { '.': 1, G: 1, S: 1, '@': null, T: 4 } },
             pickups: [{ name: 'coin', kind: 'coin', x: 4.5, y: 3.5, radius: 0.5, respawn_ticks: 1 },
                       { name: 'gem', kind: 'gem', x: 5.5, y: 3.5, radius: 0.5 }] },
    teams: ['a', 'b'], groups, keys: [], metrics: [],
    brains: [{ file: 'odd.yaml', name: 'odd', type: 'tree', nodes: [{ id: 'root', kind: 'action', label: 'action Wait', parent: -1 }] }] };
  const agent = x => [3000000000, x, 3.5, 0, 65536, 1, 'running', 'R', []];
  const lines = [header, { tick: 0, agents: [agent(0.5)] },
    { tick: 1, format: 'thicket-record', agents: [agent(0.7)], events: [['take', 1, 'coin', 3000000000], ['take', 1, 'gem', 3000000000]] },
    { tick: 2, agents: [agent(0.9)] },
    { end: true, ticks: 3, gauges: [], script_errors: 0 }];
  const file = join(artifacts, 'odd.jsonl'), html = join(artifacts, 'odd_replay.html');
  writeFileSync(file, lines.map(l => JSON.stringify(l)).join('\n') + '\n');
  execFileSync(thicket, ['view', file, '-o', html], { encoding: 'utf8' });
  const { page, errors } = await openPage(browser, pathToFileURL(html).href);
  const v = (fn, arg) => page.evaluate(fn, arg);
  await v(() => thicketViewer.ready);
  check(await v(() => thicketViewer.frameCount) === 3 && (await v(() => thicketViewer.errors)).length === 0,
    `a "format" field on a tick line is ignored: ${await v(() => thicketViewer.frameCount)} ticks, errors ${JSON.stringify(await v(() => thicketViewer.errors))}`);
  await v(t => thicketViewer.seek(t), 1);
  const [a] = await v(() => thicketViewer.agents());
  check(a && a[0] === 3000000000 && a[3] === 1, `an id past 2^31 and a group past 65,535 stay as recorded: ${JSON.stringify(a)}`);
  await v(id => thicketViewer.select(id), 3000000000);
  check(await v(() => thicketViewer.selected) === 3000000000 && /far/.test(await page.locator('.agent-facts').first().textContent().catch(() => '')),
    `that agent can be selected, its group named: ${await page.locator('.agent-facts').first().textContent().catch(e => e.message)}`);
  const cell = async (x, y) => canvasPixel(page, ...(await v(([x, y]) => thicketViewer.worldToCanvas(x, y), [x, y])));
  const free = await cell(2.5, 0.5), wall = await cell(4.5, 1.5);
  check(!sameColor(free, wall), `free and blocked cells differ (${free} / ${wall})`);
  for (const [x, what] of [[0.5, 'G'], [2.5, 'S']])
    check(sameColor(await cell(x, 1.5), free), `a '${what}' cell is drawn passable, as a '.' one (${await cell(x, 1.5)} against ${free})`);
  check(!sameColor(await cell(0.5, 2.5), wall), `a 'T' cell the terrain made passable is not drawn as a wall (${await cell(0.5, 2.5)} against ${wall})`);
  const takenAt = async t => { await v(t => thicketViewer.seek(t), t); return (await v(() => thicketViewer.pickups())).map(p => `${p.name}:${p.taken}`).join(' '); };
  const away = [await takenAt(0), await takenAt(1), await takenAt(2)];
  check(away.join(' | ') === 'coin:false gem:false | coin:true gem:true | coin:false gem:true',
    `a pickup is away for its respawn_ticks, then back (one without them stays taken): ${away.join(' | ')}`);
  check(errors.length === 0, `the odd record raises no page errors${errors.length ? ': ' + errors.join('; ') : ''}`);
  await page.close();

  // A gzip record of one member and zero padding after it (which gzip -d skips, and thicket
  // view takes): the page reads it (it was put in as it was: "Junk found after end of
  // compressed data").
  const padded = join(artifacts, 'odd_padded.jsonl.gz'), paddedHtml = join(artifacts, 'odd_padded_replay.html');
  writeFileSync(padded, Buffer.concat([gzipSync(Buffer.from(lines.map(l => JSON.stringify(l)).join('\n') + '\n')), Buffer.alloc(1024)]));
  execFileSync(thicket, ['view', padded, '-o', paddedHtml], { encoding: 'utf8' });
  const pad = await openPage(browser, pathToFileURL(paddedHtml).href);
  await pad.page.evaluate(() => thicketViewer.ready);
  const padStatus = await pad.page.evaluate(() => document.getElementById('status').textContent);
  check(await pad.page.evaluate(() => thicketViewer.frameCount) === 3 && !/cannot read/.test(padStatus),
    `a zero-padded gzip record is read: ${await pad.page.evaluate(() => thicketViewer.frameCount)} ticks, "${padStatus}"`);
  await pad.page.close();

  // A line the page cannot use (an end line whose gauges are no list, which `thicket view` now
  // refuses: the record is put into the page here by hand): its error stays in the status line
  // (the next chunk's progress wrote over it), with the line number.
  header.metrics = ['m'];
  lines[1].metrics = [1];
  lines[2].metrics = [2];
  lines[3] = { end: true, ticks: 2, gauges: 5, script_errors: 0 };
  const embedded = gzipSync(Buffer.from(lines.map(l => JSON.stringify(l)).join('\n') + '\n')).toString('base64');
  const page0 = readFileSync(html, 'utf8');
  const badHtml = join(artifacts, 'odd_bad_line_replay.html');
  writeFileSync(badHtml, page0.replace(/thicketRecordGzipBase64 = "[^"]*"/, () => `thicketRecordGzipBase64 = "${embedded}"`));
  const bad = await openPage(browser, pathToFileURL(badHtml).href);
  await bad.page.evaluate(() => thicketViewer.ready);
  const status = await bad.page.evaluate(() => [document.getElementById('status').textContent, document.getElementById('status').className]);
  check(/^record line 4: /.test(status[0]) && /error/.test(status[1]), `a line's error is shown when the record is read: "${status[0]}" (${status[1]})`);
  await bad.page.close();
}
