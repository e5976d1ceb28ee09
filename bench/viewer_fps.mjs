// How fast the viewer draws 10,000 agents: a synthetic record (10,000 agents x 600 ticks, 4
// teams, a grid map, trails on), replayed by `thicket view` and drawn in headless chromium.
// Prints the replay's size, how long the page takes to read it, and frames per second:
// drawing frames back to back (each flushed), beside a baseline (a frame of the world alone),
// and a second of playback through requestAnimationFrame (capped by the display's rate).
// Not a test (timings depend on the machine). Usage:
//   node bench/viewer_fps.mjs build/thicket [AGENTS] [TICKS]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, statSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage } from '../tests/browser/lib.mjs';

const thicket = process.argv[2] || 'build/thicket';
const AGENTS = +(process.argv[3] || 10000), TICKS = +(process.argv[4] || 600);
const dir = mkdtempSync(join(tmpdir(), 'thicket-fps-'));

// A small deterministic generator (xorshift32): the same record on every run.
let seed = 2463534242;
const random = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; };
const size = 400, cell = 2, cells = size / cell;
const rows = [];
for (let r = 0; r < cells; r++) {
  let row = '';
  for (let c = 0; c < cells; c++) row += (r % 40 === 20 && c % 50 > 8) || (c % 60 === 30 && r % 45 > 10) ? '@' : '.';
  rows.push(row);
}
const treeNodes = ['selector', 'sequence', 'condition', 'action', 'action', 'sequence', 'condition', 'action']
  .map((kind, i) => ({ id: `n${i}`, kind, label: `${kind} ${i}`, parent: i === 0 ? -1 : i < 5 ? (i === 1 ? 0 : 1) : i === 5 ? 0 : 5 }));
const header = {
  format: 'thicket-record', version: 1, scenario: 'fps', file: 'bench/viewer_fps.mjs', seed: 1, dt: 0.1, ticks: TICKS, every: 1,
  world: { bounds: [0, 0, size, size], obstacles: [{ circle: [200, 200, 12] }], map: { file: 'synthetic.map', width: cells,
    height: cells, cell, origin: [0, 0], rows }, waypoints: null, navmesh: null, areas: [], pickups: [] },
  teams: ['a', 'b', 'c', 'd'],
  brains: [{ file: 'synthetic.yaml', name: 'synthetic', type: 'tree', nodes: treeNodes }],
  groups: [0, 1, 2, 3].map(t => ({ name: `g${t}`, team: t, brain: 0, count: AGENTS / 4, first: 1 + t * AGENTS / 4, radius: 0.5 })),
  keys: ['health', 'target'], metrics: ['kills', 'alive', 'damage'],
};
const x = new Float64Array(AGENTS), y = new Float64Array(AGENTS), h = new Float64Array(AGENTS);
for (let i = 0; i < AGENTS; i++) { x[i] = 5 + random() * (size - 10); y[i] = 5 + random() * (size - 10); h[i] = random() * 6.283 - 3.1416; }
const nodeStrings = ['RFF.RRR.', 'RRSR.FF.', 'RRSS.RSR', 'SSSSSFF.'];
const parts = [JSON.stringify(header)];
const started = Date.now();
for (let t = 0; t < TICKS; t++) {
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    h[i] += (random() - 0.5) * 0.3;
    x[i] = Math.min(size - 1, Math.max(1, x[i] + Math.cos(h[i]) * 0.15));
    y[i] = Math.min(size - 1, Math.max(1, y[i] + Math.sin(h[i]) * 0.15));
    agents.push(`[${i + 1},${x[i].toFixed(3)},${y[i].toFixed(3)},${h[i].toFixed(3)},${(i / (AGENTS / 4)) | 0},1,"running","${nodeStrings[(i + (t >> 5)) & 3]}",[${100 - (t % 100)},${(i * 7 + t) % 13 === 0 ? i + 2 : null}]]`);
  }
  parts.push(`{"tick":${t},"agents":[${agents.join(',')}],"events":[["damage",${t},1,2,5]],"metrics":[${t >> 3},${AGENTS},${t * 5}]}`);
}
parts.push(JSON.stringify({ end: true, ticks: TICKS, gauges: ['alive'], script_errors: 0 }));
const text = parts.join('\n') + '\n';
const recordPath = join(dir, 'fps.jsonl.gz');
writeFileSync(recordPath, gzipSync(Buffer.from(text), { level: 6 }));
console.log(`record: ${AGENTS} agents x ${TICKS} ticks, ${(text.length / 1e6).toFixed(1)} MB of JSONL, ` +
  `${(statSync(recordPath).size / 1e6).toFixed(1)} MB gzip (${(statSync(recordPath).size / (AGENTS * TICKS)).toFixed(1)} B/agent-tick); generated in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const html = join(dir, 'fps.html');
let t0 = Date.now();
execFileSync(thicket, ['view', recordPath, '-o', html], { stdio: ['ignore', 'inherit', 'inherit'] });
console.log(`thicket view: ${((Date.now() - t0) / 1000).toFixed(1)} s; replay ${(statSync(html).size / 1e6).toFixed(1)} MB` +
  ` (${(statSync(html).size / (AGENTS * TICKS)).toFixed(1)} B/agent-tick)`);

const { browser, close } = await launch({ width: 1280, height: 800 }, ['--js-flags=--expose-gc', '--enable-precise-memory-info']);
try {
  const { page, errors } = await openPage(browser, pathToFileURL(html).href);
  t0 = Date.now();
  await page.evaluate(() => window.thicketViewer.ready);
  const memory = await page.evaluate(() => { if (window.gc) gc(); return performance.memory ? performance.memory.usedJSHeapSize : 0; });
  console.log(`page read the record in ${((Date.now() - t0) / 1000).toFixed(1)} s (page open to ready); ` +
    `${await page.evaluate(() => thicketViewer.frameCount)} ticks; JS heap ${(memory / 1e6).toFixed(0)} MB`);
  const frames = 60;
  const empty = await page.evaluate(n => thicketViewer.benchFrames(n, true), frames);
  await page.evaluate(() => thicketViewer.setTrails(0));
  const bodies = await page.evaluate(n => thicketViewer.benchFrames(n), frames);
  await page.evaluate(() => thicketViewer.setTrails(12));
  const trails = await page.evaluate(n => thicketViewer.benchFrames(n), frames);
  await page.evaluate(() => thicketViewer.select(1));
  const selected = await page.evaluate(n => thicketViewer.benchFrames(n), frames);
  const fps = ms => `${(1000 / ms).toFixed(0)} fps (${ms.toFixed(1)} ms)`;
  console.log(`baseline, the world alone:         ${fps(empty)}`);
  console.log(`${AGENTS} agents, no trails:         ${fps(bodies)}`);
  console.log(`${AGENTS} agents, trails of 12 ticks: ${fps(trails)}`);
  console.log(`... and an agent's panel and plots:  ${fps(selected)}`);
  // Playback through requestAnimationFrame at 16x for two seconds: frames actually shown.
  await page.evaluate(() => thicketViewer.seek(0));
  const shown = await page.evaluate(() => new Promise(resolve => {
    const start = thicketViewer.frame;
    document.getElementById('speed').value = '16';
    document.getElementById('speed').dispatchEvent(new Event('change'));
    document.getElementById('play').click();
    let count = 0;
    const t0 = performance.now();
    const tickFrame = () => {
      count++;
      if (performance.now() - t0 < 2000) requestAnimationFrame(tickFrame);
      else resolve({ fps: count / ((performance.now() - t0) / 1000), advanced: thicketViewer.frame - start });
    };
    requestAnimationFrame(tickFrame);
  }));
  console.log(`playback at 16x (requestAnimationFrame): ${shown.fps.toFixed(0)} fps, ${shown.advanced} ticks in 2 s`);
  if (errors.length) console.log(`page errors: ${errors.join('; ')}`);
} finally {
  await close();
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true }); else console.log(`kept ${dir}`);
}
