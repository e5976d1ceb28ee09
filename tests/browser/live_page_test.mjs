// The page's live mode against a stand-in server (the real one is `thicket run --serve`):
// the page connects EventSource('/record'), takes one record line per message, follows the
// newest tick while "live" is on, stays put while it is off, and drops nothing it received.
// The page is the one `thicket view` writes, switched to live mode (viewer_page(..., true)
// differs only in that flag).
// Usage: node live_page_test.mjs THICKET BUILD_DIR
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { launch, openPage, artifactsDir, check, failed, canvasPixel, sameColor, parseRecord, sourceDir } from './lib.mjs';

const [thicket, buildDir] = process.argv.slice(2);
if (!thicket || !buildDir) {
  console.error('usage: node live_page_test.mjs THICKET BUILD_DIR');
  process.exit(64);
}
const artifacts = artifactsDir(resolve(buildDir));
const recordPath = join(sourceDir, 'tests/browser/fixtures/small.jsonl');
const html = join(artifacts, 'live_page.html');
execFileSync(thicket, ['view', recordPath, '-o', html]);
const page_html = readFileSync(html, 'utf8').replace('var thicketLive = false;', 'var thicketLive = true;');
const text = readFileSync(recordPath, 'utf8');
const lines = text.split('\n').filter(l => l.trim());
const records = parseRecord(text);
const header = records[0];

// The stand-in server: lines go out when the test releases them.
let client = null, sent = 0;
const server = createServer((req, res) => {
  if (req.url === '/') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page_html);
  } else if (req.url === '/record') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    client = res;
  } else {
    res.writeHead(404);
    res.end();
  }
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;
const release = count => {
  for (let k = 0; k < count && sent < lines.length; k++) client.write(`data: ${lines[sent++]}\n\n`);
};

const { browser, close } = await launch();
try {
  const { page, errors } = await openPage(browser, url);
  await page.waitForFunction(() => window.thicketViewer !== undefined);
  for (let k = 0; k < 50 && !client; k++) await new Promise(r => setTimeout(r, 100));
  check(client !== null, 'the page connects to /record');
  release(1 + 5); // the header and ticks 0..4
  await page.waitForFunction(() => thicketViewer.frameCount === 5, null, { timeout: 10000 });
  await page.waitForFunction(() => thicketViewer.tick === 4, null, { timeout: 10000 });
  check(true, 'five ticks arrived; the page follows the newest (tick 4)');
  const t4 = records[5];
  const a = t4.agents[0];
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
  const [sx, sy] = await page.evaluate(([x, y]) => thicketViewer.worldToCanvas(x, y), [a[1], a[2]]);
  const want = await page.evaluate(t => thicketViewer.teamColor(t), header.groups[a[4]].team);
  check(sameColor(await canvasPixel(page, sx, sy), want), `agent ${a[0]} is drawn where tick 4 puts it`);

  // Live off: the view stays at tick 4 while more arrive.
  await page.click('#live');
  release(5);
  await page.waitForFunction(() => thicketViewer.frameCount === 10, null, { timeout: 10000 });
  check(await page.evaluate(() => thicketViewer.tick) === 4, 'with live off the page stays at tick 4 while ticks 5..9 arrive');
  await page.click('#live');
  await page.waitForFunction(() => thicketViewer.tick === 9, null, { timeout: 10000 });
  check(true, 'live on again: it jumps to the newest tick (9)');

  // The rest in one burst: nothing is dropped.
  release(lines.length);
  const tickCount = records.filter(r => r.tick !== undefined).length;
  await page.waitForFunction(n => thicketViewer.frameCount === n, tickCount, { timeout: 10000 });
  await page.waitForFunction(() => thicketViewer.record.end !== null, null, { timeout: 10000 });
  const ticks = await page.evaluate(() => thicketViewer.ticks());
  check(JSON.stringify(ticks) === JSON.stringify(records.filter(r => r.tick !== undefined).map(r => r.tick)),
    `all ${ticks.length} ticks received in order, and the end line`);
  // The hot reload (a brains line) reached the page: an agent's tree after it has the new nodes.
  const reload = records.find(r => r.brains_at !== undefined);
  if (reload) {
    const after = records.find(r => r.tick !== undefined && r.tick >= reload.brains_at);
    const agent = after.agents[0];
    await page.evaluate(([t, id]) => { thicketViewer.seek(t); thicketViewer.select(id); }, [after.tick, agent[0]]);
    const nodes = await page.evaluate(() => thicketViewer.treeNodes());
    const want = reload.brains[header.groups[agent[4]].brain].nodes.map(n => n.id);
    check(JSON.stringify(nodes.map(n => n.id)) === JSON.stringify(want),
      `after the brains line of tick ${reload.brains_at}, agent ${agent[0]}'s tree has the reloaded ${want.length} nodes`);
  }
  const plots = await page.evaluate(() => thicketViewer.plotData());
  check(plots.length === header.metrics.length && plots[0].values.length === ticks.length, 'the plots hold every tick');
  await page.screenshot({ path: join(artifacts, 'live_page.png') });
  check(errors.length === 0, `no page errors${errors.length ? ': ' + errors.join('; ') : ''}`);
} finally {
  if (client) client.end();
  server.close();
  await close();
}
console.log(failed() ? `live page: ${failed()} check(s) failed` : 'live page: all checks passed');
process.exit(failed() ? 1 : 0);
