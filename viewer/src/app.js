// app.js: the page's state and controls: play / pause / step / scrub / speed, trails, follow,
// selection, the live feed (EventSource('/record')), and window.thicketViewer for tests.
'use strict';

(function main() {
  const $ = id => document.getElementById(id);
  const record = new RecordData();
  const canvas = $('world');
  const view = new WorldView(canvas, record);
  const panel = new BrainPanel($('agent-panel'), record);
  const plots = new MetricPlots($('plots'), record);

  const state = {
    frame: 0,          // index into record.frames
    position: 0,       // fractional frame position while playing
    playing: false,
    speed: 1,
    trails: 12,
    follow: false,
    live: thicketLive,
    selected: -1,
    dirty: true,
    errors: [],
    loaded: false,
    lastTime: 0,
    framesDrawn: 0,
  };

  let resolveReady;
  const ready = new Promise(r => { resolveReady = r; });

  function setStatus(text, error) {
    $('status').textContent = text;
    $('status').classList.toggle('error', !!error);
  }
  function onLineError(line, message) {
    state.errors.push(`line ${line}: ${message}`);
    setStatus(`record line ${line}: ${message}`, true);
  }

  function frameCount() { return record.frames.length; }
  function currentTick() { const f = record.frames[state.frame]; return f ? f.tick : 0; }

  function setFrame(i) {
    const n = frameCount();
    i = Math.max(0, Math.min(n - 1, Math.round(i)));
    if (n === 0) i = 0;
    if (i !== state.frame) state.dirty = true;
    state.frame = i;
  }

  function render() {
    view.resize();
    const f = record.frames[state.frame];
    if (state.follow && state.selected >= 0 && f) {
      const i = record.indexOf(f, state.selected);
      if (i >= 0) view.centreOn(f.x[i], f.y[i]);
    }
    view.draw(state.frame, { trails: state.trails, selected: state.selected });
    panel.update(state.selected, state.frame);
    plots.setTick(currentTick());
    const n = frameCount();
    $('scrub').max = String(Math.max(0, n - 1));
    $('scrub').value = String(state.frame);
    const last = n ? record.frames[n - 1].tick : 0;
    $('tick-label').textContent = n ? `tick ${currentTick()} / ${last}` : 'tick –';
    state.dirty = false;
    state.framesDrawn++;
  }

  function loop(time) {
    const dt = state.lastTime ? Math.min(0.25, (time - state.lastTime) / 1000) : 0;
    state.lastTime = time;
    if (state.playing && frameCount() > 1) {
      // Real time at 1x: a frame covers dt * every seconds of the run.
      const h = record.header, seconds = (h.dt || 0.1) * (h.every || 1);
      state.position += dt * state.speed / seconds;
      if (state.position >= frameCount() - 1) {
        state.position = frameCount() - 1;
        if (!thicketLive) setPlaying(false);
      }
      setFrame(Math.floor(state.position));
    }
    if (state.dirty) render();
    requestAnimationFrame(loop);
  }

  function setPlaying(on) {
    state.playing = on;
    if (on && state.frame >= frameCount() - 1 && !thicketLive) state.frame = 0;
    state.position = state.frame;
    $('play').textContent = on ? '❚❚' : '▶';
  }
  function step(d) {
    setPlaying(false);
    setLive(false);
    setFrame(state.frame + d);
  }
  function setLive(on) {
    if (!thicketLive) return;
    state.live = on;
    $('live').checked = on;
    if (on) setFrame(frameCount() - 1);
  }

  function onHeader() {
    const h = record.header;
    $('title').textContent = `${h.scenario ?? ''}  ·  seed ${h.seed ?? '?'}  ·  dt ${h.dt ?? '?'} s` +
      (h.every > 1 ? `  ·  every ${h.every} ticks` : '');
    const legend = $('legend');
    legend.replaceChildren();
    h.teams.forEach((t, k) => {
      const s = document.createElement('span');
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = rgb(teamColor(k));
      s.append(sw, t);
      legend.append(s);
    });
    view.userView = false;
    view.mapCanvas = null;
    view.width = 0;
    state.frame = 0;
    state.selected = -1;
    plots.build();
    state.dirty = true;
  }

  let plotTimer = null;
  record.on(what => {
    if (what === 'header') onHeader();
    if (what === 'tick') {
      if (thicketLive && state.live) setFrame(frameCount() - 1);
      if (thicketLive && !plotTimer)
        plotTimer = setTimeout(() => { plotTimer = null; plots.refreshData(); state.dirty = true; }, 250);
      state.dirty = true;
    }
    if (what === 'end') {
      if (thicketLive) setStatus(`run ended after ${record.end.ticks} ticks`);
      plots.build();
      state.dirty = true;
    }
  });

  // Controls.
  $('play').onclick = () => { setLive(false); setPlaying(!state.playing); };
  $('back').onclick = () => step(-1);
  $('forward').onclick = () => step(1);
  $('first').onclick = () => { setLive(false); setPlaying(false); setFrame(0); };
  $('last').onclick = () => { setPlaying(false); setFrame(frameCount() - 1); };
  $('scrub').oninput = e => { setPlaying(false); setLive(false); setFrame(+e.target.value); };
  $('speed').onchange = e => { state.speed = +e.target.value; };
  const trailsChanged = () => {
    state.trails = $('trails').checked ? Math.max(1, +$('trail-length').value || 1) : 0;
    state.dirty = true;
  };
  $('trails').onchange = trailsChanged;
  $('trail-length').onchange = trailsChanged;
  $('follow').onchange = e => { state.follow = e.target.checked; if (!state.follow) view.userView = true; state.dirty = true; };
  $('live').onchange = e => setLive(e.target.checked);
  $('fit').onclick = () => { view.userView = false; view.fit(); state.dirty = true; };
  if (thicketLive) $('live-toggle').hidden = false;

  function select(id) {
    state.selected = id;
    state.dirty = true;
    render();
  }

  let drag = null;
  canvas.addEventListener('mousedown', e => { drag = { x: e.clientX, y: e.clientY, moved: false }; });
  window.addEventListener('mousemove', e => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    drag.moved = true;
    view.pan(dx, dy);
    drag.x = e.clientX; drag.y = e.clientY;
    state.dirty = true;
  });
  window.addEventListener('mouseup', e => {
    if (drag && !drag.moved) {
      const r = canvas.getBoundingClientRect();
      if (e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom)
        select(view.pick(state.frame, e.clientX - r.left, e.clientY - r.top));
    }
    drag = null;
  });
  canvas.addEventListener('wheel', e => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    view.zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.0015));
    state.dirty = true;
  }, { passive: false });
  window.addEventListener('resize', () => { state.dirty = true; });
  window.addEventListener('keydown', e => {
    if (e.target instanceof HTMLInputElement && e.target.type !== 'checkbox' && e.target.type !== 'range') return;
    const speeds = [...$('speed').options].map(o => +o.value);
    const k = e.key;
    if (k === ' ') { setLive(false); setPlaying(!state.playing); }
    else if (k === 'ArrowRight') step(e.shiftKey ? 10 : 1);
    else if (k === 'ArrowLeft') step(e.shiftKey ? -10 : -1);
    else if (k === 'Home') $('first').onclick();
    else if (k === 'End') $('last').onclick();
    else if (k === 't') { $('trails').checked = !$('trails').checked; trailsChanged(); }
    else if (k === 'f') { $('follow').checked = !$('follow').checked; $('follow').onchange({ target: $('follow') }); }
    else if (k === 'l') setLive(!state.live);
    else if (k === '0') $('fit').onclick();
    else if (k === 'Escape') select(-1);
    else if (k === '+' || k === '-') {
      const i = speeds.indexOf(state.speed) + (k === '+' ? 1 : -1);
      if (i >= 0 && i < speeds.length) { state.speed = speeds[i]; $('speed').value = String(speeds[i]); }
    } else return;
    e.preventDefault();
  });

  // The page's state for tests and benches (tests/browser, bench/viewer_fps.mjs).
  window.thicketViewer = {
    ready,
    record,
    get tick() { return currentTick(); },
    get frame() { return state.frame; },
    get frameCount() { return frameCount(); },
    get selected() { return state.selected; },
    get errors() { return state.errors.slice(); },
    get live() { return state.live; },
    ticks() { return record.frames.map(f => f.tick); },
    seek(tick) { setPlaying(false); setLive(false); setFrame(record.frameAt(tick)); render(); return currentTick(); },
    select,
    setTrails(k) { state.trails = k; $('trails').checked = k > 0; if (k > 0) $('trail-length').value = String(k); state.dirty = true; },
    // CSS pixels within the canvas and in the page (for clicks) of a world point.
    worldToCanvas(x, y) { return view.toScreen(x, y); },
    worldToPage(x, y) {
      const r = canvas.getBoundingClientRect(), [sx, sy] = view.toScreen(x, y);
      return [r.left + sx, r.top + sy];
    },
    // The agents of the current tick: [id, canvas x, canvas y, team] each.
    agents() {
      const f = record.frames[state.frame];
      if (!f) return [];
      const out = [];
      for (let i = 0; i < f.n; i++) {
        const [sx, sy] = view.toScreen(f.x[i], f.y[i]);
        out.push([f.ids[i], sx, sy, record.groupTeam[f.group[i]]]);
      }
      return out;
    },
    teamColor,
    scale() { return view.scale; },
    treeNodes() { return panel.nodes(); },
    treeLinks() { return [...document.querySelectorAll('#brain-tree path.link title')].map(t => t.textContent); },
    pickups() {
      return (record.header ? record.header.world.pickups || [] : []).map(k => ({
        name: k.name, taken: record.pickupTakenAt(k, state.frame) }));
    },
    setFollow(on) { $('follow').checked = on; $('follow').onchange({ target: $('follow') }); render(); },
    plotData() { return plots.data(); },
    render,
    // Draws `count` frames back to back (stepping through the record) and returns the mean
    // milliseconds a frame took, the canvas flushed each time (the bench).
    benchFrames(count, empty) {
      const ctx = canvas.getContext('2d');
      const start = performance.now();
      for (let k = 0; k < count; k++) {
        if (empty) {
          view.resize();
          view.drawLayer();
          ctx.setTransform(1, 0, 0, 1, 0, 0);
          ctx.drawImage(view.layer, 0, 0);
        } else {
          state.frame = k % Math.max(1, frameCount());
          render();
        }
        ctx.getImageData(0, 0, 1, 1); // waits for the drawing to be done
      }
      return (performance.now() - start) / count;
    },
  };

  if (thicketLive) {
    setStatus('connecting…');
    const source = new EventSource('/record');
    const feeder = new LineFeeder(record, onLineError);
    source.onopen = () => setStatus('live');
    source.onmessage = e => {
      feeder.one(e.data);
      if (record.header) resolveReady();
    };
    source.onerror = () => setStatus(record.end ? `run ended after ${record.end.ticks} ticks` : 'disconnected; retrying…', !record.end);
  } else if (thicketRecordGzipBase64) {
    setStatus('reading the record…');
    // The progress line gives way to a line's error (it wrote over it after the next chunk).
    loadEmbeddedRecord(thicketRecordGzipBase64, record, onLineError,
      n => { if (!state.errors.length) setStatus(`reading the record… ${n} tick lines`); })
      .then(() => {
        thicketRecordGzipBase64 = null; // the frames hold it all now
        state.loaded = true;
        // The run's ticks (with --record-every N a line holds N of them: "43 ticks" was said
        // of a 300-tick run recorded every 7).
        if (!state.errors.length)
          setStatus(`${record.runTicks()} ticks` + (frameCount() !== record.runTicks() ? ` in ${frameCount()} tick lines` : ''));
        else setStatus(`record ${state.errors[0]}${state.errors.length > 1 ? ` (and ${state.errors.length - 1} more)` : ''}`, true);
        state.dirty = true;
        render();
        resolveReady();
      })
      .catch(e => { setStatus(`cannot read the record: ${e.message}`, true); resolveReady(); });
  } else {
    setStatus('no record in this page', true);
    resolveReady();
  }
  requestAnimationFrame(loop);
})();
